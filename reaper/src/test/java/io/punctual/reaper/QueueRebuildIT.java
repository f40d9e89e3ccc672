package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.Promoter;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.testing.TestClock;
import io.punctual.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Redis loses its data; the promoter notices and rebuilds the near-term queue at once. */
class QueueRebuildIT {
  private static long queued(Stores stores) {
    long n = 0;
    for (Priority p : Priority.values()) {
      n += stores.queue().size("default", p);
    }
    return n;
  }

  private static List<NewJob> jobsWithin(TestClock clock, int n) {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      // spread over the next 5 minutes, all inside the 10-minute horizon, none due yet
      jobs.add(
          aJob()
              .runAt(clock.instant().plusSeconds(60 + i % 240))
              .priority(Priority.ofRank(i % 4))
              .build());
    }
    return jobs;
  }

  @Test
  void afterItsKeysAreGoneTheQueueIsRebuiltBeforeAnyJobIsDue() {
    try (ReaperFixture f = new ReaperFixture()) {
      f.submit(jobsWithin(f.clock, 2_500));
      Promoter promoter = promoter(f.stores, f.clock);
      promoter.runOnce();
      assertThat(queued(f.stores)).isEqualTo(2_500);

      flush(f.stores);
      assertThat(queued(f.stores)).isZero();
      promoter.runOnce();

      assertThat(queued(f.stores)).isEqualTo(2_500);
      assertThat(promoter.rebuilds()).isEqualTo(2); // the first start, then the loss
    }
  }

  @Test
  void aRestartedRedisWithoutPersistenceIsRebuiltToo() {
    TestStores servers = TestStores.get();
    TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    EmbeddedRedisServer redis = EmbeddedRedisServer.start(null);
    int port = redis.port();
    try (Stores stores =
        new Stores(
            servers.newDatabase(),
            new RedisSettings(redis.url(), "rb"),
            new QueueSettings(),
            clock,
            "t")) {
      stores.partitions().ensureAhead();
      stores.submissions().submit(jobsWithin(clock, 300));
      Promoter promoter = promoter(stores, clock);
      promoter.runOnce();
      assertThat(queued(stores)).isEqualTo(300);

      redis.close();
      redis = EmbeddedRedisServer.start(null, port);
      awaitReconnect(stores);
      assertThat(queued(stores)).isZero();
      promoter.runOnce();

      assertThat(queued(stores)).isEqualTo(300);
      assertThat(promoter.rebuilds()).isEqualTo(2);
    } finally {
      redis.close();
    }
  }

  @Test
  void aRedisThatKeptItsCursorButRestartedIsRebuilt() {
    // A restart that reloads an older snapshot keeps a cursor but may lack later entries: the
    // cursor is stamped with the server's run_id, which changes on every start.
    try (ReaperFixture f = new ReaperFixture()) {
      f.submit(jobsWithin(f.clock, 100));
      Promoter promoter = promoter(f.stores, f.clock);
      promoter.runOnce();
      stampCursorWithAnotherServer(f.stores);
      for (Priority p : Priority.values()) {
        f.stores.redis().sync().del(f.stores.keys().queue("default", p));
      }

      promoter.runOnce();

      assertThat(queued(f.stores)).isEqualTo(100);
      assertThat(promoter.rebuilds()).isEqualTo(2);
    }
  }

  private static Double score(Stores stores, Job job) {
    return stores
        .redis()
        .sync()
        .zscore(stores.keys().queue("default", job.priority()), job.id().toString());
  }

  private static double ms(Instant t) {
    return (double) t.toEpochMilli();
  }

  @Test
  void afterAFlushDueJobsPutBackWaitTheHoldBackAndJobsQueuedSinceKeepTheirTime() {
    try (ReaperFixture f = new ReaperFixture()) {
      Instant due = f.clock.instant().minusSeconds(5);
      // A worker had taken this one from the queue and runs it on a claim not written yet.
      Job running = f.store(List.of(aJob().runAt(due).build())).get(0);
      Job future = f.store(List.of(aJob().runAt(f.clock.instant().plusSeconds(60)).build())).get(0);
      Promoter promoter = promoter(f.stores, f.clock);
      promoter.runOnce();
      f.stores.queue().remove("default", running.priority(), running.id());

      flush(f.stores);
      // Submitted after the flush: queued by the API at its due time.
      Job submitted = f.submit(List.of(aJob().runAt(due).build())).get(0);
      promoter.runOnce();

      Instant heldUntil = f.clock.instant().plus(f.stores.queueSettings().recoveryHoldBack);
      assertThat(score(f.stores, running)).isEqualTo(ms(heldUntil));
      assertThat(score(f.stores, submitted)).isEqualTo(ms(due));
      assertThat(score(f.stores, future)).isEqualTo(ms(future.runAt()));
      assertThat(promoter.rebuilds()).isEqualTo(2);
    }
  }

  @Test
  void afterARestartThatKeptOldEntriesDueOnesAreHeldBackToo() {
    try (ReaperFixture f = new ReaperFixture()) {
      Instant due = f.clock.instant().minusSeconds(5);
      Job job = f.submit(List.of(aJob().runAt(due).build())).get(0);
      Promoter promoter = promoter(f.stores, f.clock);
      promoter.runOnce();
      assertThat(score(f.stores, job)).isEqualTo(ms(due));
      // The server restarted and reloaded a snapshot from before a worker took the job: its entry
      // is back, its lease is not.
      stampCursorWithAnotherServer(f.stores);

      promoter.runOnce();

      Instant heldUntil = f.clock.instant().plus(f.stores.queueSettings().recoveryHoldBack);
      assertThat(score(f.stores, job)).isEqualTo(ms(heldUntil));
    }
  }

  @Test
  void aRebuildCutShortGoesOnHoldingBackAndThePassesAfterTheHoldBackDoNot() {
    try (ReaperFixture f = new ReaperFixture()) {
      Promoter promoter = promoter(f.stores, f.clock);
      promoter.runOnce();
      flush(f.stores);
      promoter.runOnce(); // the rebuild, with nothing to put back
      // Stored meanwhile, missing from the queue, due: as the rest of a rebuild cut short.
      Job late = f.store(List.of(aJob().runAt(f.clock.instant().minusSeconds(1)).build())).get(0);
      String cursorKey = f.stores.keys().promoterCursor();
      String cursor = f.stores.redis().sync().get(cursorKey);
      f.stores
          .redis()
          .sync()
          .set(cursorKey, cursor.substring(0, cursor.indexOf('/')) + "/0/" + new UUID(0, 0));

      promoter.runOnce();

      assertThat(score(f.stores, late))
          .as("held back by the rebuild's note")
          .isEqualTo(ms(f.clock.instant().plus(f.stores.queueSettings().recoveryHoldBack)));
      assertThat(promoter.rebuilds()).isEqualTo(2);

      // Once the note has expired, passes enqueue at the due time again.
      f.stores.redis().sync().del(f.stores.keys().promoterHoldBack());
      f.stores.queue().remove("default", late.priority(), late.id());
      f.stores
          .redis()
          .sync()
          .set(cursorKey, cursor.substring(0, cursor.indexOf('/')) + "/0/" + new UUID(0, 0));
      promoter.runOnce();
      assertThat(score(f.stores, late)).isEqualTo(ms(late.runAt()));
    }
  }

  /** As if the cursor had been written by another Redis server (a restart, a failover). */
  private static void stampCursorWithAnotherServer(Stores stores) {
    String cursorKey = stores.keys().promoterCursor();
    String cursor = stores.redis().sync().get(cursorKey);
    stores.redis().sync().set(cursorKey, "another-server" + cursor.substring(cursor.indexOf('/')));
  }

  /** FLUSHALL, limited to this test's keys (other tests may share the server). */
  private static void flush(Stores stores) {
    TestStack.deleteOwnRedisKeys(stores.redis(), stores.keys());
  }

  private static Promoter promoter(Stores stores, TestClock clock) {
    return new Promoter(
        stores.queries()::pendingDue,
        stores.queue(),
        stores.redis(),
        stores.queueSettings(),
        clock,
        "test-reaper");
  }

  private static void awaitReconnect(Stores stores) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        stores.redis().sync().ping();
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
