package io.punctual.worker.complete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AfterCommitTest {
  private final AfterCommit after = new AfterCommit("w1");

  @Test
  void runsStepsInOrderAndCloseRunsWhatIsQueued() throws Exception {
    List<Integer> ran = new CopyOnWriteArrayList<>();
    CountDownLatch gate = new CountDownLatch(1);
    after.start();
    after.submit(
        () -> {
          pass(gate);
          ran.add(0);
        });
    for (int i = 1; i <= 3; i++) {
      int n = i;
      after.submit(() -> ran.add(n));
    }
    gate.countDown();
    after.close();
    assertThat(ran).containsExactly(0, 1, 2, 3);
  }

  @Test
  void aFailingStepDoesNotStopTheNext() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    after.start();
    after.submit(
        () -> {
          throw new IllegalStateException("boom");
        });
    after.submit(() -> ran.add("next"));
    after.close();
    assertThat(ran).containsExactly("next");
  }

  @Test
  void aWriterFurtherAheadThanTheCapacityWaits() throws Exception {
    CountDownLatch taken = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    after.start();
    after.submit(
        () -> {
          taken.countDown();
          pass(gate);
        });
    // The thread holds the first step: the queue is empty.
    assertThat(taken.await(5, TimeUnit.SECONDS)).isTrue();
    AtomicInteger queued = new AtomicInteger();
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    for (int i = 0; i < AfterCommit.CAPACITY + 1; i++) {
                      after.submit(() -> {});
                      queued.incrementAndGet();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    await().atMost(Duration.ofSeconds(5)).until(() -> queued.get() == AfterCommit.CAPACITY);
    writer.join(300);
    assertThat(writer.isAlive()).isTrue(); // the one beyond the capacity waits
    assertThat(queued).hasValue(AfterCommit.CAPACITY);
    gate.countDown();
    writer.join(5_000);
    assertThat(queued).hasValue(AfterCommit.CAPACITY + 1);
    after.close();
  }

  private static void pass(CountDownLatch gate) {
    try {
      assertThat(gate.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
