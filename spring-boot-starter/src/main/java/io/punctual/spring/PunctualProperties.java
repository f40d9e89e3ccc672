package io.punctual.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code punctual.*} properties of a Spring Boot application. The database is the application's
 * {@code DataSource}; every worker setting not named here keeps the default of the YAML's {@code
 * worker} section, and all are validated as the YAML's are when the worker starts.
 */
@ConfigurationProperties("punctual")
public class PunctualProperties {
  /** The namespace {@link TransactionalJobs} submits into, and the worker's if it names none. */
  private String namespace = "default";

  /** Migrate the database's schema at start-up (as {@code punctual migrate}). */
  private boolean migrate = false;

  private final Redis redis = new Redis();
  private final Worker worker = new Worker();

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

  public Worker getWorker() {
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

  /** {@code punctual.worker.*}: the embedded worker. */
  public static class Worker {
    /** Whether JobHandler beans are run by an embedded worker (only when there are some). */
    private boolean enabled = true;

    /** The namespaces whose jobs it runs; empty: {@code punctual.namespace}. */
    private List<String> namespaces = new ArrayList<>();

    /** Most jobs it holds at once ({@code worker.concurrency}). */
    private int concurrency = 1024;

    /**
     * How long stopping the context lets running handlers finish ({@code worker.shutdownGrace}).
     */
    private Duration shutdownGrace = Duration.ofSeconds(30);

    /** Whether a death watch runs beside it, as beside {@code punctual worker}. */
    private boolean deathWatch = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getNamespaces() {
      return namespaces;
    }

    public void setNamespaces(List<String> namespaces) {
      this.namespaces = namespaces;
    }

    public int getConcurrency() {
      return concurrency;
    }

    public void setConcurrency(int concurrency) {
      this.concurrency = concurrency;
    }

    public Duration getShutdownGrace() {
      return shutdownGrace;
    }

    public void setShutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
    }

    public boolean isDeathWatch() {
      return deathWatch;
    }

    public void setDeathWatch(boolean deathWatch) {
      this.deathWatch = deathWatch;
    }
  }
}
