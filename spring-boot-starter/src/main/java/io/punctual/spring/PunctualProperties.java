package io.punctual.spring;

import io.punctual.queue.config.RedisSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code punctual.*} properties of a Spring Boot application. The database is the application's
 * {@code DataSource}; the embedded worker's settings are {@code punctual.worker.*} ({@link
 * WorkerProperties}).
 */
@ConfigurationProperties("punctual")
public class PunctualProperties {
  /** The namespace {@link TransactionalJobs} submits into, and the worker's if it names none. */
  private String namespace = "default";

  /** Migrate the database's schema at start-up (as {@code punctual migrate}). */
  private boolean migrate = false;

  /**
   * What a submitted job's {@code callback.url} may name beyond the public internet: CIDR blocks,
   * IP addresses, host names (the API's {@code worker.http.allow}; keep the two equal). Empty: the
   * public internet only.
   */
  private List<String> callbackAllow = new ArrayList<>();

  private final Redis redis = new Redis();
  private final QueueProperties queue = new QueueProperties();
  private final WorkerProperties worker = new WorkerProperties();
  private final OutboxProperties outbox = new OutboxProperties();

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public boolean isMigrate() {
    return migrate;
  }

  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  public List<String> getCallbackAllow() {
    return callbackAllow;
  }

  public void setCallbackAllow(List<String> callbackAllow) {
    this.callbackAllow = callbackAllow == null ? new ArrayList<>() : callbackAllow;
  }

  public Redis getRedis() {
    return redis;
  }

  public QueueProperties getQueue() {
    return queue;
  }

  public WorkerProperties getWorker() {
    return worker;
  }

  public OutboxProperties getOutbox() {
    return outbox;
  }

  /** {@code punctual.redis.*}: the deployment's Redis, the YAML's {@code redis} section. */
  public static class Redis {
    private static final RedisSettings DEFAULTS = new RedisSettings();

    /** E.g. {@code redis://:password@host:6379}; never logged. */
    private String url = DEFAULTS.url;

    /** Redis Cluster: its nodes' URLs (any few); empty: the standalone server at {@code url}. */
    private List<String> cluster = new ArrayList<>();

    /** How many Cluster slots one logical queue spans ({@code redis.queueShards}, 1 to 64). */
    private int queueShards = DEFAULTS.queueShards;

    /** Independent Redis nodes for the job leases (Redlock); empty: the main Redis. */
    private List<String> leaseNodes = new ArrayList<>();

    /** How long a restarted lease node sits out before it grants leases again. */
    private Duration leaseNodeRestartDelay = DEFAULTS.leaseNodeRestartDelay;

    /** The prefix of every key: the deployment's {@code redis.keyPrefix}. */
    private String keyPrefix = DEFAULTS.keyPrefix;

    /** The YAML's settings with these values. */
    RedisSettings toSettings() {
      RedisSettings s = new RedisSettings();
      s.url = url;
      s.cluster = new ArrayList<>(cluster);
      s.queueShards = queueShards;
      s.leaseNodes = new ArrayList<>(leaseNodes);
      s.leaseNodeRestartDelay = leaseNodeRestartDelay;
      s.keyPrefix = keyPrefix;
      return s;
    }

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public List<String> getCluster() {
      return cluster;
    }

    public void setCluster(List<String> cluster) {
      this.cluster = cluster;
    }

    public int getQueueShards() {
      return queueShards;
    }

    public void setQueueShards(int queueShards) {
      this.queueShards = queueShards;
    }

    public List<String> getLeaseNodes() {
      return leaseNodes;
    }

    public void setLeaseNodes(List<String> leaseNodes) {
      this.leaseNodes = leaseNodes;
    }

    public Duration getLeaseNodeRestartDelay() {
      return leaseNodeRestartDelay;
    }

    public void setLeaseNodeRestartDelay(Duration leaseNodeRestartDelay) {
      this.leaseNodeRestartDelay = leaseNodeRestartDelay;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }
  }
}
