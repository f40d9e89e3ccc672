package io.punctual.schedule.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.schedule.expression.CronExpression.Dialect;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parsing and wall-clock matching of both dialects (times here are zone-free wall-clock times). */
class CronExpressionTest {
  private static final LocalDateTime SUNDAY_JUNE_1 = LocalDateTime.parse("2025-06-01T00:00:00");

  private static List<LocalDateTime> next(String cron, LocalDateTime from, int n) {
    CronExpression expression = CronExpression.parse(cron);
    List<LocalDateTime> out = new ArrayList<>();
    LocalDateTime t = from;
    for (int i = 0; i < n; i++) {
      t = expression.nextLocal(t).orElseThrow();
      out.add(t);
    }
    return out;
  }

  private static List<LocalDateTime> times(String... iso) {
    return List.of(iso).stream().map(LocalDateTime::parse).toList();
  }

  @Test
  void unixWithNamesRangesStepsAndLists() {
    assertThat(next("0 9 * * MON-FRI", SUNDAY_JUNE_1, 3))
        .containsExactlyElementsOf(
            times("2025-06-02T09:00", "2025-06-03T09:00", "2025-06-04T09:00"));
    assertThat(next("*/15 9-10 * * 1-5", SUNDAY_JUNE_1, 9).get(8))
        .isEqualTo(LocalDateTime.parse("2025-06-03T09:00"));
    assertThat(next("0 0 1 JAN,JUL *", SUNDAY_JUNE_1, 2))
        .containsExactlyElementsOf(times("2025-07-01T00:00", "2026-01-01T00:00"));
    assertThat(next("5,35 */6 * * SUN", SUNDAY_JUNE_1, 3))
        .containsExactlyElementsOf(
            times("2025-06-01T00:05", "2025-06-01T00:35", "2025-06-01T06:05"));
  }

  @Test
  void unixSundayIsZeroOrSeven() {
    assertThat(next("0 9 * * 0", SUNDAY_JUNE_1, 1)).isEqualTo(next("0 9 * * 7", SUNDAY_JUNE_1, 1));
  }

  @Test
  void unixDayOfMonthOrDayOfWeekLikeVixieCron() {
    // Both day fields restricted: the 13th, and every Monday.
    assertThat(next("0 9 13 * MON", SUNDAY_JUNE_1, 4))
        .containsExactlyElementsOf(
            times("2025-06-02T09:00", "2025-06-09T09:00", "2025-06-13T09:00", "2025-06-16T09:00"));
  }

  @Test
  void quartzWithSecondsLastWeekdayAndNth() {
    assertThat(CronExpression.parse("*/10 * * * * ?").dialect()).isEqualTo(Dialect.QUARTZ);
    assertThat(next("*/10 * * * * ?", SUNDAY_JUNE_1, 2))
        .containsExactlyElementsOf(times("2025-06-01T00:00:10", "2025-06-01T00:00:20"));
    // L: last day of the month; LW: last weekday; 6#3: third Friday (1 = Sunday); 5L: last
    // Thursday.
    assertThat(next("0 0 12 L * ?", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-30T12:00"));
    assertThat(next("0 0 12 LW * ?", LocalDateTime.parse("2025-08-01T00:00"), 1))
        .containsExactly(ldt("2025-08-29T12:00"));
    assertThat(next("0 0 12 15W * ?", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-16T12:00"));
    assertThat(next("0 0 12 ? * 6#3", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-20T12:00"));
    assertThat(next("0 0 12 ? * 5L", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-26T12:00"));
    assertThat(next("0 15 10 ? * MON-FRI 2025", SUNDAY_JUNE_1, 1))
        .containsExactly(ldt("2025-06-02T10:15"));
  }

  @Test
  void nicknamesStandForTheirFiveFieldForms() {
    assertThat(next("@hourly", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-01T01:00"));
    assertThat(next("@daily", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-02T00:00"));
    assertThat(next("@weekly", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-06-08T00:00"));
    assertThat(next("@monthly", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2025-07-01T00:00"));
    assertThat(next("@yearly", SUNDAY_JUNE_1, 1)).containsExactly(ldt("2026-01-01T00:00"));
  }

  @Test
  void aFractionOfASecondIsNotAMatchAndNextIsStrict() {
    CronExpression everySecond = CronExpression.parse("* * * * * ?");
    assertThat(everySecond.nextLocal(ldt("2025-06-01T10:00:00.500")))
        .contains(ldt("2025-06-01T10:00:01"));
    assertThat(everySecond.nextLocal(ldt("2025-06-01T10:00:00")))
        .contains(ldt("2025-06-01T10:00:01"));
  }

  @ParameterizedTest(name = "[{0}]: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0 9 * *|has 4 fields",
        "0 9 * * * * * *|has 8 fields",
        "61 9 * * *|Value 61 not in range",
        "0 9 * * MONX|Invalid chars",
        "0 0 9 * * MON|one of day-of-month and day-of-week must be ?",
        "@reboot|unknown nickname",
        "' '|must not be blank",
        "*/0 * * * *|is not a valid Unix expression",
      })
  void badExpressionsSayWhatIsWrong(String cron, String message) {
    assertThatThrownBy(() -> CronExpression.parse(cron))
        .isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining(message);
  }

  private static LocalDateTime ldt(String iso) {
    return LocalDateTime.parse(iso);
  }
}
