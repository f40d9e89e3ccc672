package io.punctual.app;

import com.codahale.metrics.MetricRegistry;
import io.punctual.handler.JobHandler;
import io.punctual.queue.Stores;
import io.punctual.reaper.DeathWatchLoop;
import io.punctual.reaper.ReaperSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A Punctual worker inside any JVM application: the same worker as {@code punctual worker} (claim
 * loop, leases, heartbeats, limits, fair shares between namespaces, graceful shutdown, the
 * promoter), running the {@link JobHandler} objects the application constructs, on the
 * application's own {@link DataSource} or on a pool it opens. Beside it runs a death watch, as
 * beside every {@code punctual worker}: it rescues within seconds the attempts of any worker that
 * stopped reporting alive.
 *
 * <pre>{@code
 * PunctualWorker worker = PunctualWorker.builder()
 *     .dataSource(dataSource)            // the app's pool, left open at close
 *     .redisUrl("redis://localhost:6379")
 *     .clock(Clock.systemUTC())
 *     .namespace("billing")
 *     .handler(new InvoiceHandler(invoices))
 *     .concurrency(16)
 *     .build();
 * worker.start();
 * ...
 * worker.close();                        // graceful: running handlers finish (shutdownGrace)
 * }</pre>
 *
 * <p>It does not run the reaper's repairs (lost attempts of workers that died without the death
 * watch seeing them, drift between PostgreSQL and Redis, partitions and retention, the statistics):
 * a deployment runs {@code punctual reaper} somewhere. It runs only the handlers it is given: a job
 * of its namespaces whose type it has no handler for fails ("no handler for type"), so give an
 * embedded worker namespaces whose every type it handles.
 */
public final class PunctualWorker implements AutoCloseable {
  private final Stores stores;
  private final Worker worker;
  private final DeathWatchLoop deathWatch;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PunctualWorker(Stores stores, Worker worker, DeathWatchLoop deathWatch) {
    this.stores = stores;
    this.worker = worker;
    this.deathWatch = deathWatch;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens the stores and builds the worker on them (and a death watch, unless {@code reaper} is
   * null).
   */
  private static PunctualWorker open(
      Backend backend,
      WorkerSettings settings,
      JobHandlers handlers,
      MetricRegistry metrics,
      ReaperSettings reaper) {
    Stores stores = backend.open("punctual-worker");
    try {
      Worker worker = new Worker(stores, settings, handlers, metrics);
      DeathWatchLoop watch = reaper == null ? null : new DeathWatchLoop(stores, reaper, metrics);
      return new PunctualWorker(stores, worker, watch);
    } catch (RuntimeException e) {
      stores.close();
      throw e;
    }
  }

  /** Starts claiming and running jobs (and the death watch). Once only. */
  public void start() {
    worker.start();
    if (deathWatch != null) {
      deathWatch.start();
    }
  }

  /**
   * Stops claiming, lets running handlers finish within {@code shutdownGrace}, interrupts the rest
   * and hands their attempts back (PENDING again at once, no attempt used up), writes every result,
   * releases the leases, and closes the connections Punctual opened (not an application's {@link
   * DataSource}). Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (deathWatch != null) {
        deathWatch.close();
      }
      worker.close();
    } finally {
      stores.close();
    }
  }

  /** This worker's name in leases, job rows and logs. */
  public String workerId() {
    return worker.workerId();
  }

  /**
   * PostgreSQL and Redis answer within {@code timeout}, and the claim loop runs (false before
   * {@link #start()} and after {@link #close()}).
   */
  public PunctualHealth health(Duration timeout) {
    return Backend.health(stores, worker.claiming() && !closed.get(), timeout);
  }

  /** Attempts running now. */
  public int running() {
    return worker.running();
  }

  /** How to build a {@link PunctualWorker}; {@code clock}, a database and a handler are needed. */
  public static final class Builder extends BackendBuilder<Builder> {
    private final Map<String, JobHandler> handlers = new LinkedHashMap<>();
    private WorkerSettings settings;
    private List<String> namespaces;
    private Integer concurrency;
    private Duration shutdownGrace;
    private ReaperSettings reaper = new ReaperSettings();
    private boolean deathWatch = true;
    private MetricRegistry metrics;

    private Builder() {}

    /** A handler the application built; one per job type. At least one. */
    public Builder handler(JobHandler handler) {
      Objects.requireNonNull(handler, "handler");
      String type = Objects.requireNonNull(handler.type(), "handler.type()");
      if (handlers.putIfAbsent(type, handler) != null) {
        throw new IllegalArgumentException("two handlers for type " + type);
      }
      return this;
    }

    /** The namespaces whose jobs it runs. Default {@code default}. */
    public Builder namespace(String... namespaces) {
      this.namespaces = List.of(namespaces);
      return this;
    }

    /** Most jobs held at once, each on a virtual thread. Default 1024 ({@code worker.*}). */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /** How long {@link #close()} lets running handlers finish. Default 30 s. */
    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = Objects.requireNonNull(shutdownGrace, "shutdownGrace");
      return this;
    }

    /**
     * Every other worker setting (the {@code worker} section of the YAML: lease, heartbeats,
     * claims, liveness, workerId); {@link #namespace}, {@link #concurrency} and {@link
     * #shutdownGrace} are set on it. Validated at build. Used as given, its {@code workerId}
     * included: give each worker settings of its own.
     */
    public Builder settings(WorkerSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /** Whether a death watch runs beside the worker (as beside {@code punctual worker}). */
    public Builder deathWatch(boolean deathWatch) {
      this.deathWatch = deathWatch;
      return this;
    }

    /** The death watch's settings ({@code reaper.deathCheckInterval}); the YAML's defaults. */
    public Builder reaperSettings(ReaperSettings reaper) {
      this.reaper = Objects.requireNonNull(reaper, "reaper");
      return this;
    }

    /** Where the worker's meters go (Dropwizard Metrics). Default a registry of its own. */
    public Builder metrics(MetricRegistry metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * Checks the settings, opens the connections (migrating first with {@link #migrate}) and builds
     * the worker, not started yet.
     *
     * @throws io.punctual.common.config.InvalidSettingsException settings that make no sense
     * @throws IllegalStateException no clock, no database, no handler, or no Punctual schema
     */
    public PunctualWorker build() {
      if (handlers.isEmpty()) {
        throw new IllegalStateException("no handler: give the worker at least one");
      }
      // Fresh settings per build unless given: each worker its own workerId.
      WorkerSettings effective = settings != null ? settings : new WorkerSettings();
      if (namespaces != null) {
        effective.namespaces = new ArrayList<>(namespaces);
      }
      if (concurrency != null) {
        effective.concurrency = concurrency;
      }
      if (shutdownGrace != null) {
        effective.shutdownGrace = shutdownGrace;
      }
      effective.validate();
      reaper.validate();
      MetricRegistry registry = metrics != null ? metrics : new MetricRegistry();
      JobHandlers registered = new JobHandlers();
      handlers.values().forEach(registered::register);
      return open(backend, effective, registered, registry, deathWatch ? reaper : null);
    }
  }
}
