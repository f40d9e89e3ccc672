package io.punctual.worker.handler.registry;

import io.punctual.handler.JobHandler;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.builtin.FailHandler;
import io.punctual.worker.handler.builtin.NoopHandler;
import io.punctual.worker.handler.builtin.SleepHandler;
import io.punctual.worker.handler.http.HttpHandler;
import java.security.CodeSource;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handlers a worker knows, by job type. A later registration of a type replaces the earlier.
 */
public final class JobHandlers {
  private static final Logger log = LoggerFactory.getLogger(JobHandlers.class);

  private final Map<String, JobHandler> byType = new ConcurrentHashMap<>();

  /** The types whose handler is still the built-in one. */
  private final Set<String> builtIn = ConcurrentHashMap.newKeySet();

  /** An empty registry. */
  public JobHandlers() {}

  /**
   * The built-in handlers ({@code noop}, {@code sleep}, {@code fail}, {@code http}) plus every
   * {@link JobHandler} found by {@link ServiceLoader} (which may replace a built-in). {@code clock}
   * is the worker's: the {@code http} handler signs webhooks and reads {@code Retry-After} by it;
   * {@code tenancy} is what it asks of each job's namespace (its signing secrets, its egress).
   */
  public static JobHandlers withBuiltIns(
      WorkerSettings settings, Clock clock, HttpHandler.Tenancy tenancy) {
    JobHandlers handlers = new JobHandlers();
    handlers.register(new NoopHandler());
    handlers.register(new SleepHandler());
    handlers.register(new FailHandler());
    handlers.register(new HttpHandler(settings.http, clock, tenancy, null));
    handlers.builtIn.addAll(handlers.byType.keySet());
    for (JobHandler handler : ServiceLoader.load(JobHandler.class)) {
      handlers.register(handler);
    }
    return handlers;
  }

  public JobHandlers register(JobHandler handler) {
    Objects.requireNonNull(handler, "handler");
    String type = Objects.requireNonNull(handler.type(), "handler.type()");
    JobHandler previous = byType.put(type, handler);
    builtIn.remove(type);
    if (previous != null && previous != handler) {
      log.info(
          "handler for type={} replaced: {} -> {}",
          type,
          previous.getClass().getName(),
          handler.getClass().getName());
    }
    return this;
  }

  public Optional<JobHandler> find(String type) {
    return type == null ? Optional.empty() : Optional.ofNullable(byType.get(type));
  }

  /**
   * What the worker can run, for its start-up log: the built-in types, then each other type with
   * its class and where that was loaded from ({@code built-in: fail, http, noop, sleep; custom:
   * report.build (com.acme.ReportHandler from file:/opt/handlers/acme.jar)}).
   */
  public String describe() {
    Set<String> custom = types();
    custom.removeAll(builtIn);
    StringBuilder out =
        new StringBuilder("built-in: ")
            .append(builtIn.isEmpty() ? "none" : String.join(", ", new TreeSet<>(builtIn)));
    out.append("; custom: ");
    if (custom.isEmpty()) {
      out.append("none (add handler jars with --handlers or PUNCTUAL_HANDLERS)");
    }
    String separator = "";
    for (String type : custom) {
      Class<?> c = byType.get(type).getClass();
      CodeSource source = c.getProtectionDomain().getCodeSource();
      out.append(separator).append(type).append(" (").append(c.getName());
      if (source != null && source.getLocation() != null) {
        out.append(" from ").append(source.getLocation());
      }
      out.append(')');
      separator = ", ";
    }
    return out.toString();
  }

  /** The registered types, sorted. */
  public Set<String> types() {
    return new TreeSet<>(byType.keySet());
  }
}
