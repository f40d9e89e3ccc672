package io.punctual.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.JobId;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadyQueueIT {
  private final TestClock clock = TestClock.at("2026-11-22T12:00:00Z");
  private final TestStack stack = new TestStack(clock);
  private final ReadyQueue queue = stack.queue;

  @AfterEach
  void close() {
    stack.close();
  }

  private List<QueueEntry> entries(Priority priority, int count, Instant runAt) {
    List<QueueEntry> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new QueueEntry(JobId.forScheduledTime(runAt), "default", priority, runAt));
    }
    return out;
  }

  @Test
  void strictModeDrainsHigherPrioritiesFirst() {
    stack.queueSettings.strictPriority = true;
    Instant now = clock.instant();
    queue.enqueue(entries(Priority.LOW, 3, now));
    queue.enqueue(entries(Priority.CRITICAL, 3, now));
    queue.enqueue(entries(Priority.NORMAL, 3, now));

    List<Priority> order =
        queue.claim("default", 9, now).claimed().stream().map(Claimed::priority).toList();

    assertThat(order)
        .containsExactly(
            Priority.CRITICAL,
            Priority.CRITICAL,
            Priority.CRITICAL,
            Priority.NORMAL,
            Priority.NORMAL,
            Priority.NORMAL,
            Priority.LOW,
            Priority.LOW,
            Priority.LOW);
  }

  @Test
  void weightedModeSharesByWeightEvenOneJobAtATime() {
    Instant now = clock.instant();
    for (Priority p : Priority.values()) {
      queue.enqueue(entries(p, 100, now));
    }

    Map<Priority, Integer> counts = new EnumMap<>(Priority.class);
    for (int i = 0; i < 30; i++) {
      for (Claimed c : queue.claim("default", 1, now).claimed()) {
        counts.merge(c.priority(), 1, Integer::sum);
      }
    }

    // weights 8:4:2:1 over two full rounds of 15
    assertThat(counts)
        .containsEntry(Priority.CRITICAL, 16)
        .containsEntry(Priority.HIGH, 8)
        .containsEntry(Priority.NORMAL, 4)
        .containsEntry(Priority.LOW, 2);
  }

  @Test
  void claimsFromOneBusyQueueLeaveTheSharesAsTheyWere() {
    Instant now = clock.instant();
    queue.enqueue(entries(Priority.CRITICAL, 4, now));
    queue.enqueue(entries(Priority.LOW, 20, now));
    // Weights 8:1: CRITICAL four times, each time LOW's share grows by one.
    for (int i = 0; i < 4; i++) {
      assertThat(queue.claim("default", 1, now).claimed())
          .extracting(Claimed::priority)
          .containsExactly(Priority.CRITICAL);
    }
    // LOW alone: taken in its order, in one claim or one at a time, its share kept.
    List<Claimed> alone = new ArrayList<>(queue.claim("default", 3, now).claimed());
    alone.addAll(queue.claim("default", 1, now).claimed());
    assertThat(alone).extracting(Claimed::priority).containsOnly(Priority.LOW);
    assertThat(alone).extracting(Claimed::id).doesNotHaveDuplicates().hasSize(4);

    // Both busy again: LOW's share, built up before, wins the first pick, then CRITICAL's turn.
    queue.enqueue(entries(Priority.CRITICAL, 4, now));
    assertThat(queue.claim("default", 1, now).claimed())
        .extracting(Claimed::priority)
        .containsExactly(Priority.LOW);
    assertThat(queue.claim("default", 1, now).claimed())
        .extracting(Claimed::priority)
        .containsExactly(Priority.CRITICAL);
  }

  @Test
  void weightedModeGivesSpareCapacityToWhoeverHasWork() {
    Instant now = clock.instant();
    queue.enqueue(entries(Priority.LOW, 10, now));
    queue.enqueue(entries(Priority.CRITICAL, 2, now));

    List<Claimed> claimed = queue.claim("default", 12, now).claimed();

    assertThat(claimed).hasSize(12);
    assertThat(claimed.stream().filter(c -> c.priority() == Priority.LOW)).hasSize(10);
  }

  @Test
  void onlyDueJobsAreClaimedAndTheNextDueTimeIsReported() {
    Instant now = clock.instant();
    List<QueueEntry> due = entries(Priority.NORMAL, 2, now.minusMillis(5));
    List<QueueEntry> later = entries(Priority.HIGH, 1, now.plusSeconds(7));
    queue.enqueue(due);
    queue.enqueue(later);

    ReadyQueue.ClaimResult result = queue.claim("default", 10, now);

    assertThat(result.claimed())
        .extracting(Claimed::id)
        .containsExactlyInAnyOrder(due.get(0).id(), due.get(1).id());
    assertThat(result.nextDue()).contains(now.plusSeconds(7));
    assertThat(queue.claim("default", 10, now).claimed()).isEmpty();
    assertThat(queue.claim("default", 10, now.plusSeconds(7)).claimed())
        .extracting(Claimed::id)
        .containsExactly(later.get(0).id());
    assertThat(queue.claim("default", 10, now.plusSeconds(8)).nextDue()).isEmpty();
  }

  @Test
  void namespacesAreSeparateQueues() {
    Instant now = clock.instant();
    queue.enqueue(
        List.of(new QueueEntry(JobId.forScheduledTime(now), "tenant-a", Priority.NORMAL, now)));

    assertThat(queue.claim("default", 10, now).claimed()).isEmpty();
    assertThat(queue.claim("tenant-a", 10, now).claimed()).hasSize(1);
  }

  @Test
  void reEnqueueKeepsTheEarlierDueTime() {
    Instant now = clock.instant();
    QueueEntry entry = entries(Priority.NORMAL, 1, now.plusSeconds(10)).get(0);
    queue.enqueue(List.of(entry));
    queue.enqueue(
        List.of(new QueueEntry(entry.id(), "default", Priority.NORMAL, now.plusSeconds(60))));

    assertThat(queue.claim("default", 1, now.plusSeconds(10)).claimed()).hasSize(1);
  }

  @Test
  void aBatchOfMoreMembersThanOneAddTakesIsQueuedWhole() {
    // enqueue.lua adds up to 1,000 members per ZADD: a batch crosses that boundary in one queue,
    // mixes a second queue in, and re-enqueues some members with a later time that must not win.
    Instant now = clock.instant();
    List<QueueEntry> normal = entries(Priority.NORMAL, 2_300, now);
    List<QueueEntry> batch = new ArrayList<>(normal);
    batch.addAll(entries(Priority.HIGH, 7, now));
    for (QueueEntry e : normal.subList(1_990, 2_010)) {
      batch.add(new QueueEntry(e.id(), "default", Priority.NORMAL, now.plusSeconds(60)));
    }
    queue.enqueue(batch);

    List<Claimed> claimed = queue.claim("default", 5_000, now).claimed();

    assertThat(claimed).hasSize(2_307);
    assertThat(claimed.stream().filter(c -> c.priority() == Priority.HIGH)).hasSize(7);
    assertThat(claimed)
        .extracting(Claimed::id)
        .containsAll(normal.stream().map(QueueEntry::id).toList());
    assertThat(queue.claim("default", 10, now.plusSeconds(61)).claimed()).isEmpty();
  }

  @Test
  void enqueueAnnouncesOnlyAJobDueSoonerThanEverythingQueued() throws Exception {
    BlockingQueue<Instant> wakes = new LinkedBlockingQueue<>();
    try (WakeListener listener =
        WakeListener.subscribe(
            stack.redisClient, stack.keys, List.of("default"), (ns, at) -> wakes.add(at))) {
      Instant now = clock.instant();
      queue.enqueue(entries(Priority.LOW, 1, now.plusSeconds(30)));
      assertThat(wakes.poll(5, TimeUnit.SECONDS)).isEqualTo(now.plusSeconds(30));

      queue.enqueue(entries(Priority.LOW, 1, now.plusSeconds(60)));
      queue.enqueue(entries(Priority.CRITICAL, 1, now.plusSeconds(5)));

      assertThat(wakes.poll(5, TimeUnit.SECONDS)).isEqualTo(now.plusSeconds(5));
      assertThat(wakes.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
  }

  @Test
  void scriptsSurviveAScriptFlush() {
    Instant now = clock.instant();
    queue.enqueue(entries(Priority.NORMAL, 1, now));
    stack.redis.sync().scriptFlush();

    queue.enqueue(entries(Priority.NORMAL, 1, now));
    assertThat(queue.claim("default", 10, now.plus(Duration.ofMillis(1))).claimed()).hasSize(2);
  }

  @Test
  void theAsyncWritesDoWhatTheBlockingOnesDo() throws Exception {
    Instant now = clock.instant();
    List<QueueEntry> a = entries(Priority.HIGH, 2, now);
    QueueEntry other = new QueueEntry(JobId.forScheduledTime(now), "tenant-a", Priority.LOW, now);
    List<QueueEntry> all = new ArrayList<>(a);
    all.add(other);

    queue.enqueueAsync(all).get(5, TimeUnit.SECONDS);
    assertThat(queue.size("default", Priority.HIGH)).isEqualTo(2);
    assertThat(queue.size("tenant-a", Priority.LOW)).isEqualTo(1);

    queue.removeAllAsync(List.of(a.get(0))).get(5, TimeUnit.SECONDS);
    assertThat(queue.size("default", Priority.HIGH)).isEqualTo(1);

    queue.removeAllAsync(List.of(a.get(1), other)).get(5, TimeUnit.SECONDS);
    assertThat(queue.size("default", Priority.HIGH)).isZero();
    assertThat(queue.size("tenant-a", Priority.LOW)).isZero();
  }

  @Test
  void asyncEnqueueSurvivesAScriptFlush() throws Exception {
    Instant now = clock.instant();
    stack.redis.sync().scriptFlush();

    queue.enqueueAsync(entries(Priority.NORMAL, 1, now)).get(5, TimeUnit.SECONDS);
    assertThat(queue.claim("default", 10, now).claimed()).hasSize(1);
  }
}
