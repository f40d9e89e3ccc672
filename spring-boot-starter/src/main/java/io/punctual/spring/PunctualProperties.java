package io.punctual.spring;

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

  private final Redis redis = new Redis();
  private final WorkerProperties worker = new WorkerProperties();

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

  public Redis getRedis() {
    return redis;
  }

  public WorkerProperties getWorker() {
    return worker;
  }

  /** {@code punctual.redis.*}: the deployment's Redis. */
  public static class Redis {
    /** E.g. {@code redis://:password@host:6379}; never logged. */
    private String url = "redis://127.0.0.1:6379";

    /** The prefix of every key: the deployment's {@code redis.keyPrefix}. */
    private String keyPrefix = "punctual";

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }
  }
}
