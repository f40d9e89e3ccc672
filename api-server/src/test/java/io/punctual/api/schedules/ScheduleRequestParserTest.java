package io.punctual.api.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.requests.FieldError;
import io.punctual.requests.Fields;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.JobFields;
import io.punctual.schedule.ScheduleDefinition;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code every}: which ISO-8601 durations make an interval, and what a refusal says. */
class ScheduleRequestParserTest {
  private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");

  /** The API's defaults, and planner.minInterval's. */
  private static final JobFields.Rules JOB_RULES =
      new JobFields.Rules(262_144, Priority.NORMAL, 3, 100, Backoff.DEFAULT);

  private final ScheduleRequestParser parser =
      new ScheduleRequestParser(JOB_RULES, ScheduleDefinition.DEFAULT_MIN_INTERVAL);

  private ScheduleDefinition parse(String every) {
    return parser.parse(
        Json.readTree("{\"name\":\"n\",\"type\":\"noop\",\"every\":\"" + every + "\"}"), NOW);
  }

  private FieldError refusal(String every) {
    try {
      parse(every);
    } catch (InvalidFieldsException e) {
      assertThat(e.errors()).hasSize(1);
      return e.errors().get(0);
    }
    throw new AssertionError(every + " was accepted");
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
    "P1W, PT168H",
    "P2W, PT336H",
    "p1w, PT168H",
    "P1D, PT24H",
    "P1DT12H, PT36H",
    "PT1H, PT1H",
    "PT90S, PT1M30S",
    "PT1S, PT1S"
  })
  void fixedLengthsAreIntervals(String every, String expected) {
    assertThat(parse(every).every()).isEqualTo(Duration.parse(expected));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"P1M", "P1Y", "P1Y2M", "P1MT2H", "P3M"})
  void monthsAndYearsPointToCron(String every) {
    FieldError error = refusal(every);

    assertThat(error.field()).isEqualTo("every");
    assertThat(error.message())
        .contains("months and years have no fixed length")
        .contains("use cron");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"1 minute", "P1W2D", "PW", "1W", "P1.5W"})
  void anythingElseSaysWhatIsAccepted(String every) {
    FieldError error = refusal(every);

    assertThat(error.field()).isEqualTo("every");
    assertThat(error.message())
        .contains("ISO-8601 duration of fixed length")
        .contains("P1D")
        .contains("P1W");
  }

  @Test
  void aNumberIsNotADuration() {
    assertThatThrownBy(
            () ->
                parser.parse(Json.readTree("{\"name\":\"n\",\"type\":\"noop\",\"every\":60}"), NOW))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e ->
                assertThat(e.errors().get(0).message())
                    .contains("ISO-8601 duration of fixed length"));
  }

  @Test
  void zeroAndBelowTheMinimumAreStillRefused() {
    assertThat(refusal("PT0S").message()).contains("greater than zero");
    assertThat(refusal("P0W").message()).contains("greater than zero");
    assertThat(refusal("PT0.5S").message()).contains("at least PT1S");
  }

  @ParameterizedTest
  @CsvSource({"PT9223372036854775807S", "P9999999999D", "P52143W", "P365000DT1S"})
  void intervalsOverAThousandYearsAreRefused(String every) {
    FieldError error = refusal(every);

    assertThat(error.field()).isEqualTo("every");
    assertThat(error.message()).isEqualTo(Fields.TOO_LONG);
  }

  @Test
  void aThousandYearsIsAnInterval() {
    assertThat(parse("P365000D").every()).isEqualTo(Duration.ofDays(365_000));
  }
}
