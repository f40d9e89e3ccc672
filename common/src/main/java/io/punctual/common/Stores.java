package io.punctual.common;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.lease.Redlock;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.redis.RedisKeys;
import io.punctual.common.registry.WorkerRegistry;
import io.punctual.common.store.Database;
import io.punctual.common.store.JobStore;
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

  public final Clock clock;
  public final QueueSettings queueSettings;
  public final Database database;
  public final PartitionManager partitions;
  public final JobStore jobs;
  public final WorkflowStore workflows;
  public final RedisClient redisClient;
  public final StatefulRedisConnection<String, String> redis;
  public final RedisKeys keys;
  public final ReadyQueue queue;
  private final List<RedisClient> leaseClients = new ArrayList<>();
  public final Redlock redlock;
  public final WorkerRegistry workers;

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
    this.jobs = new JobStore(database.jdbi(), partitions, clock);
    this.workflows = new WorkflowStore(jobs);
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
    this.redlock = new Redlock(leaseNodes, keys);
    this.workers = new WorkerRegistry(database.jdbi(), clock);
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
