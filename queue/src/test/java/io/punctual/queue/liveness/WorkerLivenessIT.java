package io.punctual.queue.liveness;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.queue.liveness.WorkerLiveness.Dead;
import io.punctual.queue.testing.TestStack;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkerLivenessIT {
  private final TestStack stack = new TestStack();
  private final WorkerLiveness liveness = new WorkerLiveness(stack.redis, stack.keys);

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void aWorkerIsDeadOnlyOnceItsDeadlinePassedOnTheRedisClock() throws Exception {
    Instant deadline = liveness.renew("w-1", Duration.ofMillis(300));
    liveness.renew("w-2", Duration.ofSeconds(30));
    assertThat(liveness.expired(10).dead()).as("both within their ttl").isEmpty();

    Thread.sleep(400);
    WorkerLiveness.Expired expired = liveness.expired(10);
    assertThat(expired.dead())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.workerId()).isEqualTo("w-1");
              assertThat(d.deadlineMs()).isEqualTo(deadline.toEpochMilli());
              assertThat(d.lastSeen()).isEqualTo(deadline.minusMillis(300));
            });
    assertThat(expired.redisNow()).isAfter(deadline);
  }

  @Test
  void aDeadWorkerStaysUntilForgottenAndOneThatReportedInMeanwhileIsNotForgotten()
      throws Exception {
    liveness.renew("w-1", Duration.ofMillis(100));
    Thread.sleep(200);
    Dead dead = liveness.expired(10).dead().get(0);
    assertThat(liveness.expired(10).dead()).as("read twice, still there").hasSize(1);

    liveness.renew("w-1", Duration.ofMillis(100)); // it was only paused: it reports in again
    assertThat(liveness.forget(dead)).as("its deadline moved").isFalse();
    Thread.sleep(200);
    Dead again = liveness.expired(10).dead().get(0);
    assertThat(liveness.forget(again)).isTrue();
    assertThat(liveness.expired(10).dead()).isEmpty();
  }

  @Test
  void aWorkerLeavingIsNeitherAliveNorDead() throws Exception {
    liveness.renew("w-1", Duration.ofMillis(100));
    liveness.leave("w-1", Duration.ofMillis(100));
    Thread.sleep(200);
    assertThat(liveness.expired(10).dead()).isEmpty();
  }

  @Test
  void workerIdsWithColonsSurvive() throws Exception {
    liveness.renew("host:8080:w", Duration.ofMillis(50));
    Thread.sleep(120);
    assertThat(liveness.expired(10).dead())
        .singleElement()
        .satisfies(d -> assertThat(d.workerId()).isEqualTo("host:8080:w"));
  }
}
