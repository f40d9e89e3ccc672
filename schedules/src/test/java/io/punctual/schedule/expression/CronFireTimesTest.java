package io.punctual.schedule.expression;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.schedule.expression.DstPolicy.Gap;
import io.punctual.schedule.expression.DstPolicy.Overlap;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Next-fire calculation across daylight-saving changes. Europe/Paris changes on 2025-03-30 at
 * 01:00Z (02:00 → 03:00 local) and on 2025-10-26 at 01:00Z (03:00 → 02:00); America/New_York on
 * 2025-03-09 at 07:00Z (02:00 → 03:00) and on 2025-11-02 at 06:00Z (02:00 → 01:00).
 */
class CronFireTimesTest {
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final DstPolicy SKIP_GAP = new DstPolicy(Gap.SKIP, Overlap.FIRST);
  private static final DstPolicy BOTH = new DstPolicy(Gap.SHIFT, Overlap.BOTH);

  private static List<Instant> fires(String cron, ZoneId zone, DstPolicy dst, String from, int n) {
    return new CronFireTimes(CronExpression.parse(cron), zone, dst).list(Instant.parse(from), n);
  }

  private static List<Instant> instants(String... iso) {
    return Stream.of(iso).map(Instant::parse).toList();
  }

  @Nested
  class SpringForward {
    @Test
    void aTimeInTheGapFiresOnceShiftedForwardByTheGap() {
      // 02:30 does not exist on 2025-03-30 in Paris: it fires at 03:30 CEST (01:30Z).
      assertThat(fires("30 2 * * *", PARIS, DstPolicy.DEFAULT, "2025-03-29T00:00:00Z", 3))
          .containsExactlyElementsOf(
              instants("2025-03-29T01:30:00Z", "2025-03-30T01:30:00Z", "2025-03-31T00:30:00Z"));
    }

    @Test
    void skipLeavesTheDayOut() {
      assertThat(fires("30 2 * * *", PARIS, SKIP_GAP, "2025-03-29T00:00:00Z", 2))
          .containsExactlyElementsOf(instants("2025-03-29T01:30:00Z", "2025-03-31T00:30:00Z"));
    }

    @Test
    void shiftedTimesThatMeetRegularOnesFireOnce() {
      // */30: 02:00 moves to 03:00 and 02:30 to 03:30, which are regular times too.
      assertThat(fires("*/30 * * * *", PARIS, DstPolicy.DEFAULT, "2025-03-30T00:00:01Z", 5))
          .containsExactlyElementsOf(
              instants(
                  "2025-03-30T00:30:00Z", // 01:30 CET
                  "2025-03-30T01:00:00Z", // 02:00 -> 03:00 CEST, and 03:00 itself
                  "2025-03-30T01:30:00Z", // 02:30 -> 03:30, and 03:30 itself
                  "2025-03-30T02:00:00Z",
                  "2025-03-30T02:30:00Z"));
    }

    @Test
    void newYorkAtTwoMovesToThree() {
      assertThat(fires("0 2 * * *", NEW_YORK, DstPolicy.DEFAULT, "2025-03-08T12:00:00Z", 2))
          .containsExactlyElementsOf(instants("2025-03-09T07:00:00Z", "2025-03-10T06:00:00Z"));
      assertThat(fires("0 2 * * *", NEW_YORK, SKIP_GAP, "2025-03-08T12:00:00Z", 1))
          .containsExactly(Instant.parse("2025-03-10T06:00:00Z"));
    }

    @Test
    void quartzSecondsInTheGapShiftToo() {
      assertThat(fires("15 45 2 * * ?", NEW_YORK, DstPolicy.DEFAULT, "2025-03-09T00:00:00Z", 1))
          .containsExactly(Instant.parse("2025-03-09T07:45:15Z")); // 03:45:15 EDT
    }
  }

  @Nested
  class FallBack {
    @Test
    void aRepeatedTimeFiresOnceAtItsFirstOccurrence() {
      // 02:30 happens twice on 2025-10-26 in Paris (CEST, then CET): fires at the first.
      assertThat(fires("30 2 * * *", PARIS, DstPolicy.DEFAULT, "2025-10-25T12:00:00Z", 2))
          .containsExactlyElementsOf(instants("2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"));
    }

    @Test
    void bothFiresEachRepeatedTime() {
      assertThat(fires("30 2 * * *", PARIS, BOTH, "2025-10-25T12:00:00Z", 3))
          .containsExactlyElementsOf(
              instants("2025-10-26T00:30:00Z", "2025-10-26T01:30:00Z", "2025-10-27T01:30:00Z"));
    }

    @Test
    void anHourlyExpressionSkipsTheSecondPassThroughTheRepeatedHour() {
      assertThat(fires("*/30 * * * *", PARIS, DstPolicy.DEFAULT, "2025-10-25T23:00:01Z", 4))
          .containsExactlyElementsOf(
              instants(
                  "2025-10-25T23:30:00Z", // 01:30 CEST
                  "2025-10-26T00:00:00Z", // 02:00 CEST
                  "2025-10-26T00:30:00Z", // 02:30 CEST
                  "2025-10-26T02:00:00Z")); // 03:00 CET: 02:00 and 02:30 CET left out
      assertThat(fires("*/30 * * * *", PARIS, BOTH, "2025-10-25T23:00:01Z", 6))
          .containsExactlyElementsOf(
              instants(
                  "2025-10-25T23:30:00Z",
                  "2025-10-26T00:00:00Z",
                  "2025-10-26T00:30:00Z",
                  "2025-10-26T01:00:00Z", // 02:00 CET
                  "2025-10-26T01:30:00Z", // 02:30 CET
                  "2025-10-26T02:00:00Z"));
    }

    @Test
    void newYorkOneThirtyHappensTwice() {
      assertThat(fires("30 1 * * *", NEW_YORK, DstPolicy.DEFAULT, "2025-11-01T12:00:00Z", 2))
          .containsExactlyElementsOf(instants("2025-11-02T05:30:00Z", "2025-11-03T06:30:00Z"));
      assertThat(fires("0 30 1 * * ?", NEW_YORK, BOTH, "2025-11-01T12:00:00Z", 3))
          .containsExactlyElementsOf(
              instants("2025-11-02T05:30:00Z", "2025-11-02T06:30:00Z", "2025-11-03T06:30:00Z"));
    }

    @Test
    void searchingFromInsideTheRepeatedHourFindsWhatIsLeft() {
      // From 02:10 CET (second pass), 02:30 CET is a repeat: left out by default, kept by both.
      assertThat(fires("30 2 * * *", PARIS, DstPolicy.DEFAULT, "2025-10-26T01:10:00Z", 1))
          .containsExactly(Instant.parse("2025-10-27T01:30:00Z"));
      assertThat(fires("30 2 * * *", PARIS, BOTH, "2025-10-26T01:10:00Z", 1))
          .containsExactly(Instant.parse("2025-10-26T01:30:00Z"));
    }
  }

  @Test
  void weekdaysAtNineInParisStayAtNineLocalAcrossTheChange() {
    assertThat(fires("0 9 * * MON-FRI", PARIS, DstPolicy.DEFAULT, "2025-03-27T12:00:00Z", 3))
        .containsExactlyElementsOf(
            instants(
                "2025-03-28T08:00:00Z", // Friday, CET
                "2025-03-31T07:00:00Z", // Monday, CEST
                "2025-04-01T07:00:00Z"));
  }

  @Test
  void fixedOffsetZonesNeedNoTransitions() {
    assertThat(
            fires("0 9 * * *", ZoneOffset.ofHours(5), DstPolicy.DEFAULT, "2025-01-01T00:00:00Z", 2))
        .containsExactlyElementsOf(instants("2025-01-01T04:00:00Z", "2025-01-02T04:00:00Z"));
    assertThat(fires("0 9 * * *", ZoneId.of("UTC"), DstPolicy.DEFAULT, "2025-01-01T09:00:00Z", 1))
        .containsExactly(Instant.parse("2025-01-01T09:00:00Z"));
  }

  @Test
  void anExpressionThatCannotMatchNeverFires() {
    assertThat(fires("0 0 30 2 *", PARIS, DstPolicy.DEFAULT, "2025-01-01T00:00:00Z", 1)).isEmpty();
    assertThat(
            fires(
                "0 0 12 ? * MON-FRI 2025", NEW_YORK, DstPolicy.DEFAULT, "2025-12-30T00:00:00Z", 5))
        .containsExactlyElementsOf(instants("2025-12-30T17:00:00Z", "2025-12-31T17:00:00Z"));
  }

  @Test
  void nextAfterIsStrict() {
    CronFireTimes times =
        new CronFireTimes(CronExpression.parse("0 9 * * *"), PARIS, DstPolicy.DEFAULT);
    Instant nine = Instant.parse("2025-06-02T07:00:00Z");
    assertThat(times.nextAfter(nine)).contains(Instant.parse("2025-06-03T07:00:00Z"));
    assertThat(times.nextAfter(nine.minusMillis(1))).contains(nine);
    assertThat(times.firstFrom(nine)).contains(nine);
  }

  /**
   * A whole year of fire times, computed stretch by stretch, against a brute-force reference: every
   * matching wall-clock time mapped to instants one by one with {@link ZonedDateTime#ofLocal}
   * (which moves gap times forward by the gap and takes the earlier offset in an overlap).
   */
  @ParameterizedTest(name = "{0} in {1} with {2}")
  @MethodSource("yearOfFires")
  void aYearOfFiresMatchesTheReference(String cron, String zone, DstPolicy dst) {
    ZoneId zoneId = ZoneId.of(zone);
    CronExpression expression = CronExpression.parse(cron);
    Instant from = Instant.parse("2025-01-01T00:00:00Z");
    Instant to = Instant.parse("2026-01-01T00:00:00Z");

    List<Instant> actual = new ArrayList<>();
    CronFireTimes times = new CronFireTimes(expression, zoneId, dst);
    Optional<Instant> next = times.firstFrom(from);
    while (next.isPresent() && next.get().isBefore(to)) {
      actual.add(next.get());
      next = times.nextAfter(next.get());
    }

    assertThat(actual).containsExactlyElementsOf(reference(expression, zoneId, dst, from, to));
  }

  static Stream<Arguments> yearOfFires() {
    List<Arguments> out = new ArrayList<>();
    for (String zone : List.of("Europe/Paris", "America/New_York", "Australia/Lord_Howe")) {
      for (String cron :
          List.of("30 2 * * *", "*/20 1-3 * * *", "0 2 * * SUN", "15 30 1 * * ?", "0 0 * * *")) {
        for (DstPolicy dst :
            List.of(DstPolicy.DEFAULT, SKIP_GAP, BOTH, new DstPolicy(Gap.SKIP, Overlap.BOTH))) {
          out.add(Arguments.of(cron, zone, dst));
        }
      }
    }
    return out.stream();
  }

  private static List<Instant> reference(
      CronExpression cron, ZoneId zone, DstPolicy dst, Instant from, Instant to) {
    TreeSet<Instant> out = new TreeSet<>();
    LocalDateTime local = LocalDateTime.ofInstant(from, ZoneOffset.UTC).minusDays(2);
    LocalDateTime last = LocalDateTime.ofInstant(to, ZoneOffset.UTC).plusDays(2);
    Optional<LocalDateTime> next = cron.nextLocal(local);
    while (next.isPresent() && next.get().isBefore(last)) {
      LocalDateTime l = next.get();
      List<ZoneOffset> offsets = zone.getRules().getValidOffsets(l);
      if (offsets.isEmpty()) {
        if (dst.gap() == Gap.SHIFT) {
          out.add(ZonedDateTime.ofLocal(l, zone, null).toInstant());
        }
      } else if (offsets.size() == 2 && dst.overlap() == Overlap.BOTH) {
        out.add(l.toInstant(offsets.get(0)));
        out.add(l.toInstant(offsets.get(1)));
      } else {
        out.add(ZonedDateTime.ofLocal(l, zone, null).toInstant());
      }
      next = cron.nextLocal(l);
    }
    return List.copyOf(out.subSet(from, true, to, false));
  }
}
