package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.Promoter;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.testing.TestClock;
import io.punctual.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
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

      // FLUSHALL, limited to this test's keys (other tests may share the server)
      List<String> keys = f.stores.redis().sync().keys(f.stores.keys().prefix() + ":*");
      f.stores.redis().sync().del(keys.toArray(String[]::new));
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
      String cursorKey = f.stores.keys().promoterCursor();
      String cursor = f.stores.redis().sync().get(cursorKey);
      f.stores
          .redis()
          .sync()
          .set(cursorKey, "another-server" + cursor.substring(cursor.indexOf('/')));
      for (Priority p : Priority.values()) {
        f.stores.redis().sync().del(f.stores.keys().queue("default", p));
      }

      promoter.runOnce();

      assertThat(queued(f.stores)).isEqualTo(100);
      assertThat(promoter.rebuilds()).isEqualTo(2);
    }
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
