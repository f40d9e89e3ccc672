package io.punctual.queue;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.model.Priority;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PromoterIT {
  private final TestClock clock = new TestClock(Instant.now());
  private final TestStack stack = new TestStack(clock);

  @AfterEach
  void close() {
    stack.close();
  }

  private Promoter promoter(String holder) {
    return new Promoter(
        stack.queries::pendingDue, stack.queue, stack.redis, stack.queueSettings, clock, holder);
  }

  @Test
  void jobsEnterRedisAsTheyComeWithinTheHorizon() {
    // horizon 10 min, slack 30 s: promotes up to now + 9.5 min
    Job soon = submit(clock.instant().plus(Duration.ofMinutes(5)), Priority.HIGH);
    Job later = submit(clock.instant().plus(Duration.ofMinutes(20)), Priority.LOW);
    Promoter promoter = promoter("p1");

    assertThat(promoter.runOnce()).isEqualTo(1);
    assertThat(stack.queue.size("default", Priority.HIGH)).isEqualTo(1);
    assertThat(stack.queue.size("default", Priority.LOW)).isZero();

    clock.advance(Duration.ofMinutes(11));
    assertThat(promoter.runOnce()).isEqualTo(1);
    assertThat(stack.queue.size("default", Priority.LOW)).isEqualTo(1);
    assertThat(promoter.runOnce()).isZero();

    clock.advance(Duration.ofMinutes(10));
    List<Claimed> claimed = stack.queue.claim("default", 10, clock.instant()).claimed();
    assertThat(claimed).extracting(Claimed::id).containsExactlyInAnyOrder(soon.id(), later.id());
  }

  @Test
  void aCaughtUpPromoterReadsOnlyJobsEnteringTheWindow() {
    Promoter promoter = promoter("p1");
    assertThat(promoter.runOnce()).isZero(); // empty: the queue is complete up to now + 9.5 min

    submit(clock.instant().plusSeconds(1), Priority.NORMAL); // inside: its writer enqueues it
    Job later = submit(clock.instant().plus(Duration.ofMinutes(15)), Priority.NORMAL);
    assertThat(promoter.runOnce()).isZero();

    clock.advance(Duration.ofMinutes(6));
    assertThat(promoter.runOnce()).isEqualTo(1);
    List<Claimed> claimed =
        stack.queue.claim("default", 10, clock.instant().plus(Duration.ofMinutes(10))).claimed();
    assertThat(claimed).extracting(Claimed::id).containsExactly(later.id());
  }

  @Test
  void onlyOnePromoterWorksAtATime() {
    submit(clock.instant(), Priority.NORMAL);

    assertThat(promoter("p1").runOnce()).isEqualTo(1);
    assertThat(promoter("p2").runOnce()).isZero();
  }

  @Test
  void lostRedisDataIsRebuiltFromPostgresInPages() {
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      jobs.add(submit(clock.instant().plusMillis(i), Priority.NORMAL));
    }
    Promoter promoter = promoter("p1");
    assertThat(promoter.runOnce()).isEqualTo(2_500);

    // Lost, as after a FLUSHALL; but only this test's keys go (the server may not be ours).
    String someoneElses = "not-" + stack.keys.prefix() + ":keep";
    stack.redis.sync().set(someoneElses, "1");
    try {
      assertThat(stack.deleteOwnRedisKeys()).isPositive();
      assertThat(stack.queue.size("default", Priority.NORMAL)).isZero();

      assertThat(promoter.runOnce()).isEqualTo(2_500);
      assertThat(stack.queue.size("default", Priority.NORMAL)).isEqualTo(2_500);
      assertThat(stack.redis.sync().get(someoneElses)).as("a key of another prefix").isEqualTo("1");
    } finally {
      stack.redis.sync().del(someoneElses);
    }
  }

  @Test
  void aPassUnderWayWhenRedisLosesItsDataLeavesTheLossForTheNextPassToRebuild() {
    for (int i = 0; i < 1_500; i++) {
      submit(clock.instant().plusMillis(i), Priority.NORMAL);
    }
    AtomicBoolean loseDuringRead = new AtomicBoolean();
    Promoter promoter =
        new Promoter(
            (afterRunAt, afterId, until, limit) -> {
              if (loseDuringRead.getAndSet(false)) {
                stack.deleteOwnRedisKeys(); // as a FLUSHALL between the cursor's read and write
              }
              return stack.queries.pendingDue(afterRunAt, afterId, until, limit);
            },
            stack.queue,
            stack.redis,
            stack.queueSettings,
            clock,
            "p1");
    assertThat(promoter.runOnce()).isEqualTo(1_500);
    assertThat(promoter.rebuilds()).as("the first start").isEqualTo(1);

    clock.advance(Duration.ofSeconds(1));
    loseDuringRead.set(true);
    promoter.runOnce();
    assertThat(stack.queue.size("default", Priority.NORMAL)).isZero();

    assertThat(promoter.runOnce()).as("the next pass").isEqualTo(1_500);
    assertThat(promoter.rebuilds()).isEqualTo(2);
    assertThat(stack.queue.size("default", Priority.NORMAL)).isEqualTo(1_500);
  }

  private Job submit(Instant runAt, Priority priority) {
    return stack
        .submissions
        .submit(List.of(aJob().runAt(runAt).priority(priority).build()))
        .get(0)
        .job();
  }
}
