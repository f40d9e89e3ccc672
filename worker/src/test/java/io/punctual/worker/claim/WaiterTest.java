package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WaiterTest {
  private final Clock clock = Clock.systemUTC();
  private final Waiter waiter = new Waiter(clock);

  private CompletableFuture<Waiter.Wake> awaitDueAsync(Instant until) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return waiter.awaitDue(until);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private void awaitWaiting() {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(1))
        .until(waiter::isWaitingForDue);
  }

  @Test
  void aPastTimeReturnsAtOnce() throws Exception {
    assertThat(waiter.awaitDue(clock.instant().minusMillis(5))).isEqualTo(Waiter.Wake.DUE);
  }

  @Test
  void anAnnouncementOfSomethingSoonerEndsTheWaitAtThatTime() throws Exception {
    Instant far = clock.instant().plusSeconds(30);
    CompletableFuture<Waiter.Wake> wake = awaitDueAsync(far);
    awaitWaiting();
    Instant soon = clock.instant().plusMillis(100);
    waiter.announce(soon);

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.ANNOUNCED);
    assertThat(clock.instant()).isAfterOrEqualTo(soon);
  }

  @Test
  void anAnnouncementWhileBusyIsKeptForTheNextWait() throws Exception {
    Instant soon = clock.instant().plusMillis(50);
    waiter.announce(soon);

    assertThat(waiter.awaitDue(clock.instant().plusSeconds(30))).isEqualTo(Waiter.Wake.ANNOUNCED);
    assertThat(clock.instant()).isAfterOrEqualTo(soon);
  }

  @Test
  void aLaterAnnouncementDoesNotShortenTheWait() throws Exception {
    Instant until = clock.instant().plusMillis(150);
    CompletableFuture<Waiter.Wake> wake = awaitDueAsync(until);
    awaitWaiting();
    waiter.announce(until.plusSeconds(10));

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.DUE);
    assertThat(clock.instant()).isAfterOrEqualTo(until);
  }

  @Test
  void aFreedSlotWakesAFullLoop() throws Exception {
    AtomicInteger free = new AtomicInteger(0);
    CompletableFuture<Waiter.Wake> wake = awaitSlotsAsync(free, 1);
    Thread.onSpinWait();
    free.set(1);
    waiter.slotFreed(1);

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.SLOT);
  }

  @Test
  void aWaitForSeveralSlotsEndsOnceThatManyAreFree() throws Exception {
    AtomicInteger free = new AtomicInteger(0);
    CompletableFuture<Waiter.Wake> wake = awaitSlotsAsync(free, 3);
    free.set(2);
    waiter.slotFreed(2);
    Thread.sleep(50);
    assertThat(wake).isNotDone();

    free.set(3);
    waiter.slotFreed(3);

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.SLOT);
  }

  @Test
  void aRecheckWakesAWaitForSlotsWhoseConditionChangedOtherwise() throws Exception {
    // As the claim loop waits: for a whole claim's slots or until no claim is being confirmed.
    AtomicInteger free = new AtomicInteger(0);
    CompletableFuture<Waiter.Wake> wake = awaitSlotsAsync(free, 3);
    Thread.sleep(50);
    free.set(Integer.MAX_VALUE); // the confirmation ended
    assertThat(wake).isNotDone(); // nothing told the waiter yet

    waiter.recheckSlots();

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.SLOT);
  }

  @Test
  void aFullWaitEndsAtItsBound() throws Exception {
    assertThat(waiter.awaitSlots(() -> 0, 1, Duration.ofMillis(20))).isEqualTo(Waiter.Wake.TIMEOUT);
  }

  private CompletableFuture<Waiter.Wake> awaitSlotsAsync(AtomicInteger free, int wanted) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return waiter.awaitSlots(free::get, wanted, Duration.ofSeconds(30));
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void stopEndsEveryWait() throws Exception {
    CompletableFuture<Waiter.Wake> wake = awaitDueAsync(clock.instant().plusSeconds(30));
    awaitWaiting();
    waiter.stop();

    assertThat(wake.get(2, TimeUnit.SECONDS)).isEqualTo(Waiter.Wake.STOPPED);
    assertThat(waiter.awaitDue(clock.instant().plusSeconds(30))).isEqualTo(Waiter.Wake.STOPPED);
  }
}
