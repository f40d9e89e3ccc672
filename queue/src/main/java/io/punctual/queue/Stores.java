package io.punctual.queue;

import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.lease.Redlock;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.queue.liveness.WorkerLiveness;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.store.Database;
import io.punctual.store.JobQueries;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobTransitions;
import io.punctual.store.PartitionManager;
import io.punctual.store.WorkflowStore;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.registry.WorkerRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections one process holds to PostgreSQL and Redis, and the store, queue and leases built
 * on them. Every role (api, worker, planner, reaper, dev) opens one of these and closes it last.
 */
public final class Stores implements AutoCloseable {

  private final Clock clock;
  private final QueueSettings queueSettings;
  private final Database database;
  private final PartitionManager partitions;
  private final JobSubmissions submissions;
  private final JobTransitions transitions;
  private final JobQueries queries;
  private final WorkflowStore workflows;
  private final RedisConnector redisClient;
  private final RedisConnection redis;
  private final RedisKeys keys;
  private final ReadyQueue queue;
  private final List<RedisConnector> leaseClients = new ArrayList<>();
  private final Redlock redlock;
  private final WorkerRegistry workers;
  private final Namespaces namespaces;
  private final LimitStore limits;
  private final LimitHolds holds;
  private final WorkerLiveness liveness;
  private final HeldClaims heldClaims;

  public Stores(
      PostgresSettings postgres,
      RedisSettings redisSettings,
      QueueSettings queueSettings,
      Clock clock,
      String name) {
    this(
        connect(postgres, name, queueSettings),
        postgres.partitionDaysAhead,
        redisSettings,
        queueSettings,
        clock);
  }

  /** A pool of its own, once the queue settings are known to be valid (nothing to close else). */
  private static Database connect(
      PostgresSettings postgres, String name, QueueSettings queueSettings) {
    queueSettings.validate();
    return Database.connect(postgres, name);
  }

  /**
   * The stores on {@code database}: a pool of their own ({@link Database#connect}) or a {@link
   * javax.sql.DataSource} of an application's ({@link Database#on}, which {@link #close()} leaves
   * open). Daily partitions are created {@code partitionDaysAhead} days ahead (at least one).
   */
  public Stores(
      Database database,
      int partitionDaysAhead,
      RedisSettings redisSettings,
      QueueSettings queueSettings,
      Clock clock) {
    queueSettings.validate();
    this.clock = clock;
    this.queueSettings = queueSettings;
    this.database = database;
    this.partitions = new PartitionManager(database.jdbi(), clock, Math.max(1, partitionDaysAhead));
    this.submissions = new JobSubmissions(database.jdbi(), partitions, clock);
    this.transitions = new JobTransitions(database.jdbi(), submissions, clock);
    this.queries = new JobQueries(database.jdbi());
    this.workflows = new WorkflowStore(submissions);
    this.redisClient = RedisConnector.create(redisSettings);
    this.redis = redisClient.connect();
    this.keys = new RedisKeys(redisSettings.keyPrefix, redisSettings.queueShards);
    this.queue = new ReadyQueue(redis, keys, queueSettings);
    List<RedisConnection> leaseNodes = new ArrayList<>();
    if (redisSettings.leaseNodes == null || redisSettings.leaseNodes.isEmpty()) {
      leaseNodes.add(redis);
    } else {
      for (String url : redisSettings.leaseNodes) {
        RedisConnector client = RedisConnector.standalone(url);
        leaseClients.add(client);
        leaseNodes.add(client.connect());
      }
    }
    this.redlock =
        redisSettings.leaseNodes == null || redisSettings.leaseNodes.isEmpty()
            ? new Redlock(leaseNodes, keys)
            : new Redlock(leaseNodes, keys, redisSettings.leaseNodeRestartDelay);
    this.workers = new WorkerRegistry(database.jdbi(), clock);
    this.namespaces = new Namespaces(database.jdbi(), clock);
    this.limits = new LimitStore(database.jdbi(), clock);
    this.holds = new LimitHolds(redis, keys);
    this.liveness = new WorkerLiveness(redis, keys);
    this.heldClaims = new HeldClaims(redis, keys);
  }

  public Clock clock() {
    return clock;
  }

  public QueueSettings queueSettings() {
    return queueSettings;
  }

  public Database database() {
    return database;
  }

  public PartitionManager partitions() {
    return partitions;
  }

  /** New jobs and their idempotency keys. */
  public JobSubmissions submissions() {
    return submissions;
  }

  /** Every change of a job's status (claim, finish, cancel, rescue...). */
  public JobTransitions transitions() {
    return transitions;
  }

  /** Every read of jobs. */
  public JobQueries queries() {
    return queries;
  }

  public WorkflowStore workflows() {
    return workflows;
  }

  /** The queue Redis client (standalone or cluster), for pub/sub and the rate limiter. */
  public RedisConnector redisClient() {
    return redisClient;
  }

  public RedisConnection redis() {
    return redis;
  }

  public RedisKeys keys() {
    return keys;
  }

  /**
   * A promoter over these stores (the worker's and the reaper's: both keep Redis filled from
   * PostgreSQL), named {@code holder} in its logs and its cursor.
   */
  public Promoter promoter(String holder) {
    return new Promoter(queries()::pendingDue, queue(), redis(), queueSettings(), clock(), holder);
  }

  public ReadyQueue queue() {
    return queue;
  }

  public Redlock redlock() {
    return redlock;
  }

  public WorkerRegistry workers() {
    return workers;
  }

  /** Namespaces: whether each is active, and its quotas. */
  public Namespaces namespaces() {
    return namespaces;
  }

  /** Limits and paused types (PostgreSQL). */
  public LimitStore limits() {
    return limits;
  }

  /** The jobs limits hold back, and the mirror of the slots (Redis). */
  public LimitHolds holds() {
    return holds;
  }

  /** Each worker's claims not written to PostgreSQL yet, for the death watch. */
  public HeldClaims heldClaims() {
    return heldClaims;
  }

  /** The live-workers set: workers report in, reapers find the dead ones. */
  public WorkerLiveness liveness() {
    return liveness;
  }

  @Override
  public void close() {
    for (RedisConnector client : leaseClients) {
      client.close();
    }
    redis.close();
    redisClient.close();
    database.close();
  }
}
