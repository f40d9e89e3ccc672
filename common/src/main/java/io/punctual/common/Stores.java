package io.punctual.common;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.lease.Redlock;
import io.punctual.common.limit.LimitHolds;
import io.punctual.common.limit.LimitStore;
import io.punctual.common.namespace.Namespaces;
import io.punctual.common.queue.Promoter;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.redis.RedisKeys;
import io.punctual.common.registry.WorkerRegistry;
import io.punctual.common.store.Database;
import io.punctual.common.store.JobQueries;
import io.punctual.common.store.JobSubmissions;
import io.punctual.common.store.JobTransitions;
import io.punctual.common.store.PartitionManager;
import io.punctual.common.store.WorkflowStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections one process holds to PostgreSQL and Redis, and the store, queue and leases built
 * on them. Every role (api, worker, planner, reaper, dev) opens one of these and closes it last.
 */
public final class Stores implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Stores.class);

  private final Clock clock;
  private final QueueSettings queueSettings;
  private final Database database;
  private final PartitionManager partitions;
  private final JobSubmissions submissions;
  private final JobTransitions transitions;
  private final JobQueries queries;
  private final WorkflowStore workflows;
  private final RedisClient redisClient;
  private final StatefulRedisConnection<String, String> redis;
  private final RedisKeys keys;
  private final ReadyQueue queue;
  private final List<RedisClient> leaseClients = new ArrayList<>();
  private final Redlock redlock;
  private final WorkerRegistry workers;
  private final Namespaces namespaces;
  private final LimitStore limits;
  private final LimitHolds holds;

  public Stores(
      PostgresSettings postgres,
      RedisSettings redisSettings,
      QueueSettings queueSettings,
      Clock clock,
      String name) {
    queueSettings.validate();
    this.clock = clock;
    this.queueSettings = queueSettings;
    this.database = Database.connect(postgres, name);
    this.partitions =
        new PartitionManager(database.jdbi(), clock, Math.max(1, postgres.partitionDaysAhead));
    this.submissions = new JobSubmissions(database.jdbi(), partitions, clock);
    this.transitions = new JobTransitions(database.jdbi(), submissions, clock);
    this.queries = new JobQueries(database.jdbi());
    this.workflows = new WorkflowStore(submissions);
    this.redisClient = redisClient(redisSettings.url);
    this.redis = redisClient.connect();
    this.keys = new RedisKeys(redisSettings.keyPrefix);
    this.queue = new ReadyQueue(redis, keys, queueSettings);
    List<StatefulRedisConnection<String, String>> leaseNodes = new ArrayList<>();
    if (redisSettings.leaseNodes == null || redisSettings.leaseNodes.isEmpty()) {
      leaseNodes.add(redis);
    } else {
      for (String url : redisSettings.leaseNodes) {
        RedisClient client = redisClient(url);
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

  public RedisClient redisClient() {
    return redisClient;
  }

  public StatefulRedisConnection<String, String> redis() {
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

  /**
   * A client that fails commands at once while disconnected instead of queueing them: loops back
   * off and retry, and Redlock counts a down node as a "no" without waiting for it.
   */
  public static RedisClient redisClient(String url) {
    RedisClient client = RedisClient.create(url);
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(5)))
            .build());
    return client;
  }

  @Override
  public void close() {
    for (RedisClient client : leaseClients) {
      shutDown(client);
    }
    redis.close();
    shutDown(redisClient);
    database.close();
  }

  /**
   * Shuts a Redis client down, waiting at most a few seconds: {@code RedisClient.shutdown()} waits
   * without bound for its event loops to end, and once in a while (seen with the io_uring
   * transport) they never report it, which hung a process on its way out (a known Lettuce issue,
   * redis/lettuce#2278, still open; other projects work around it the same way).
   */
  public static void shutDown(RedisClient client) {
    try {
      client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      log.warn("Redis client did not shut down within 5 s; going on without waiting for it");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.warn("Redis client shutdown failed: {}", e.getCause().toString());
    }
  }
}
