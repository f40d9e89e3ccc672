package io.punctual.reaper;

import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestClock;
import io.punctual.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.random.RandomGenerator;

/** A fresh database and Redis prefix, {@link Stores} on a test clock, and reaper settings. */
final class ReaperFixture implements AutoCloseable {
  final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  final ReaperSettings settings = new ReaperSettings();
  final PostgresSettings postgres;
  final Stores stores;

  ReaperFixture() {
    this(TestRedis.newRedis());
  }

  /** On the given Redis (a cluster's, sharded, for instance). */
  ReaperFixture(io.punctual.queue.config.RedisSettings redis) {
    TestStores servers = TestStores.get();
    settings.rescueAfter = Duration.ofSeconds(60);
    settings.reconcileAfter = Duration.ofSeconds(10);
    postgres = servers.newDatabase();
    stores = new Stores(postgres, redis, new QueueSettings(), clock, "t");
    stores.partitions().ensureAhead();
  }

  /** A rescuer over these stores, as the reaper builds it. */
  Rescuer rescuer(RandomGenerator random) {
    return new Rescuer(stores.clock(), Reaper.rescueStores(stores), settings, random);
  }

  Reconciler reconciler() {
    return Reaper.reconciler(stores, settings);
  }

  PartitionJanitor janitor() {
    return janitor(stores);
  }

  /** A janitor over other stores (another process's), with these settings. */
  PartitionJanitor janitor(Stores on) {
    return new PartitionJanitor(
        on.clock(), on.database().jdbi(), on.partitions(), on.workers(), settings);
  }

  /** Stores jobs in PostgreSQL only (as if the API died before its enqueue). */
  List<Job> store(List<NewJob> jobs) {
    return stores.submissions().submit(jobs).stream().map(Submitted::job).toList();
  }

  /** Stores jobs and enqueues them, the way the API does. */
  List<Job> submit(List<NewJob> jobs) {
    List<Job> stored = store(jobs);
    stores
        .queue()
        .enqueue(
            stored.stream()
                .map(j -> new QueueEntry(j.id(), j.namespace(), j.priority(), j.runAt()))
                .toList());
    return stored;
  }

  Job find(Job job) {
    return stores.queries().find(job.namespace(), job.id()).orElseThrow();
  }

  /** Whether a job is in its Redis queue. */
  boolean queued(Job job) {
    return stores
            .redis()
            .sync()
            .zscore(
                stores.keys().queue(job.namespace(), job.priority(), job.id()), job.id().toString())
        != null;
  }

  @Override
  public void close() {
    stores.close();
  }
}
