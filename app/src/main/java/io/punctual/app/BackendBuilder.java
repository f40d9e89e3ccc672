package io.punctual.app;

import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.config.PostgresSettings;
import java.time.Clock;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * What every embedded piece's builder takes to reach Punctual's data ({@link PunctualWorker},
 * {@link PunctualJobs}): PostgreSQL (a pool of the application's, or one Punctual opens), Redis,
 * the queue's settings, the clock, and whether to migrate the schema at build.
 *
 * @param <B> the builder itself, so that calls chain
 */
public abstract class BackendBuilder<B extends BackendBuilder<B>> {
  final Backend backend = new Backend();

  BackendBuilder() {}

  private B self() {
    @SuppressWarnings("unchecked")
    B self = (B) this;
    return self;
  }

  /**
   * A pool on Punctual's database, the application's own: Punctual borrows connections from it (a
   * worker's claim loop, result batches and heartbeats: size it for a few more; a transactional
   * submit's partitions made ahead, outside the caller's transaction) and never closes it. Its
   * database must hold Punctual's schema ({@code punctual migrate}, or {@link #migrate}).
   */
  public B dataSource(DataSource dataSource) {
    backend.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    return self();
  }

  /** A pool Punctual opens (and closes) itself, instead of {@link #dataSource}. */
  public B postgres(PostgresSettings postgres) {
    backend.postgres = Objects.requireNonNull(postgres, "postgres");
    return self();
  }

  /** Redis, e.g. {@code redis://:password@host:6379} (never logged). Default localhost. */
  public B redisUrl(String url) {
    backend.redisUrl(url);
    return self();
  }

  /** Every Redis setting (cluster, shards, lease nodes, key prefix), instead of the URL. */
  public B redis(RedisSettings redis) {
    backend.redis = Objects.requireNonNull(redis, "redis");
    return self();
  }

  /** The prefix of every Redis key; that of the deployment's other roles ({@code punctual}). */
  public B keyPrefix(String keyPrefix) {
    backend.keyPrefix(keyPrefix);
    return self();
  }

  /**
   * The queue's settings (horizon, promoter, priority weights); those of the deployment. The
   * horizon decides what a transactional submit's {@code enqueue()} puts in Redis.
   */
  public B queue(QueueSettings queue) {
    backend.queue = Objects.requireNonNull(queue, "queue");
    return self();
  }

  /** Where Punctual reads time: {@code Clock.systemUTC()} in production. Required. */
  public B clock(Clock clock) {
    backend.clock = Objects.requireNonNull(clock, "clock");
    return self();
  }

  /** Migrate the database's schema at build (as {@code punctual migrate}). Default false. */
  public B migrate(boolean migrate) {
    backend.migrate = migrate;
    return self();
  }
}
