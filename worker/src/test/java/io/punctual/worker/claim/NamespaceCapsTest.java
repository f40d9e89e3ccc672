package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a claim of a capped namespace asks for, and when a full namespace is looked at again. */
class NamespaceCapsTest {
  private final TestClock clock = new TestClock(Instant.parse("2026-11-29T10:00:00Z"));
  private final Map<String, Integer> caps = new HashMap<>(Map.of("capped", 5));
  private final Map<String, Integer> room = new HashMap<>(Map.of("capped", 5));
  private final AtomicInteger probes = new AtomicInteger();
  private final AtomicInteger rereads = new AtomicInteger();
  private final AtomicInteger wakes = new AtomicInteger();
  private final NamespaceCaps subject =
      new NamespaceCaps(
          caps::get,
          ns -> {
            probes.incrementAndGet();
            return room.getOrDefault(ns, Integer.MAX_VALUE);
          },
          rereads::incrementAndGet,
          wakes::incrementAndGet,
          clock);

  @Test
  void anUncappedNamespaceTakesWhatItWantsWithoutAQueryOrALock() {
    assertThat(subject.room("free", 100)).isEqualTo(100);
    assertThat(subject.lockFor("free")).isNull();
    assertThat(probes).hasValue(0);
  }

  @Test
  void aCappedNamespaceTakesNoMoreThanItsRoomReadBeforeEachClaimUnderItsLock() {
    assertThat(subject.lockFor("capped")).isEqualTo("capped");
    assertThat(subject.room("capped", 100)).isEqualTo(5);
    room.put("capped", 2);
    assertThat(subject.room("capped", 100)).isEqualTo(2);
    assertThat(subject.room("capped", 1)).isEqualTo(1);
    assertThat(probes).hasValue(3);
  }

  @Test
  void aFullNamespaceIsLeftAloneLongerEachTimeItIsStillFullUpToTwoSeconds() {
    room.put("capped", 0);
    assertThat(subject.room("capped", 10)).isZero();
    assertThat(subject.nextLook()).contains(clock.instant().plus(NamespaceCaps.FIRST_RECHECK));
    assertThat(subject.room("capped", 10)).as("left alone: no query").isZero();
    assertThat(probes).hasValue(1);

    Duration expected = NamespaceCaps.FIRST_RECHECK;
    for (int i = 0; i < 6; i++) {
      clock.advance(expected);
      assertThat(subject.room("capped", 10)).isZero();
      expected = min(expected.multipliedBy(2), NamespaceCaps.LAST_RECHECK);
      assertThat(subject.nextLook()).contains(clock.instant().plus(expected));
    }
    assertThat(expected).isEqualTo(NamespaceCaps.LAST_RECHECK);

    room.put("capped", 3);
    clock.advance(expected);
    assertThat(subject.room("capped", 10)).isEqualTo(3);
    assertThat(subject.nextLook()).isEmpty();
  }

  @Test
  void anAttemptEndingHereWakesTheLoopForANamespaceLeftAlone() {
    room.put("capped", 0);
    subject.room("capped", 10);
    subject.freed(Set.of("free"));
    assertThat(wakes).as("nothing was left alone for that one").hasValue(0);

    room.put("capped", 1);
    subject.freed(Set.of("capped", "free"));
    assertThat(wakes).hasValue(1);
    assertThat(subject.room("capped", 10)).isEqualTo(1);
  }

  @Test
  void aRefusalForACapNotKnownHereHasTheCapsReadAgainAndLeavesTheNamespaceAlone() {
    subject.refusedFull("capped");
    assertThat(rereads).as("the cap is known").hasValue(0);
    subject.refusedFull("other");
    assertThat(rereads).hasValue(1);
    assertThat(subject.room("other", 10)).isZero();
    clock.advance(NamespaceCaps.FIRST_RECHECK);
    assertThat(subject.room("other", 10))
        .as("still unknown here: ask, PostgreSQL decides")
        .isEqualTo(10);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
