package io.punctual.api.remote;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.lifecycle.Managed;
import io.punctual.api.config.RemoteWorkerSettings;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.common.loop.Loops;
import io.punctual.queue.Stores;
import io.punctual.worker.config.WorkerSettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote workers registered with this API process ({@code POST /api/v1/workers}), each a {@link
 * RemoteSession}. {@link #runOnce()} (every second, from {@code ApiModule}) abandons those that
 * sent nothing for {@code api.remoteWorkers.leaseTtl} (a claim waiting in its long poll keeps a
 * worker alive); {@link #close()} stops the others gracefully.
 */
public final class RemoteWorkers implements Managed, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RemoteWorkers.class);

  private final Stores stores;
  private final RemoteWorkerSettings settings;
  private final Supplier<WorkerSettings> workerDefaults;
  private final Map<String, RemoteSession> sessions = new ConcurrentHashMap<>();
  private volatile boolean draining;
  private final ScheduledExecutorService watching =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("punctual-remote-watch").unstarted(r));

  /** Completions and heartbeats of attempts a remote worker no longer holds (the fence). */
  final Meter lateReports;

  /** Remote workers taken for dead. */
  final Meter abandoned;

  /**
   * @param workerDefaults the worker settings each remote worker starts from (a fresh object each
   *     time), its id, namespace, types and concurrency set from its registration
   */
  public RemoteWorkers(
      Stores stores,
      RemoteWorkerSettings settings,
      Supplier<WorkerSettings> workerDefaults,
      MetricRegistry metrics) {
    this.stores = stores;
    this.settings = settings;
    this.workerDefaults = workerDefaults;
    this.lateReports = metrics.meter("punctual.api.remoteWorkers.lateReports");
    this.abandoned = metrics.meter("punctual.api.remoteWorkers.abandoned");
  }

  RemoteWorkerSettings settings() {
    return settings;
  }

  /** A new remote worker, running; empty when {@code maxWorkers} are registered already. */
  Optional<RemoteSession> register(RemoteSession.Declared declared) {
    if (sessions.size() >= settings.maxWorkers) {
      return Optional.empty();
    }
    WorkerSettings base = workerDefaults.get();
    String id = "remote-" + UUID.randomUUID();
    RemoteSession session = new RemoteSession(id, declared, stores, base);
    if (draining) {
      session.drain();
    }
    sessions.put(id, session);
    try {
      session.start();
    } catch (RuntimeException e) {
      sessions.remove(id);
      throw e;
    }
    log.info(
        "remote worker registered worker={} namespace={} types={} concurrency={}",
        id,
        declared.namespace(),
        declared.types(),
        declared.concurrency());
    return Optional.of(session);
  }

  /** What a registration answers: the remote worker's id and the intervals it must keep. */
  public record Registered(
      String id,
      String namespace,
      List<String> types,
      int concurrency,
      long heartbeatIntervalMs,
      long leaseTtlMs,
      long maxWaitMs) {}

  /**
   * Registers a remote worker in {@code namespace} from a {@code POST /api/v1/workers} body (a 422
   * naming the field for a bad one; a 429 when {@code maxWorkers} are registered).
   */
  public Registered registerFrom(String namespace, JsonNode body) {
    RemoteRequests.Registration r = RemoteRequests.registration(body);
    RemoteSession session =
        register(new RemoteSession.Declared(namespace, r.types(), r.concurrency()))
            .orElseThrow(
                () ->
                    new ProblemException(
                        Problem.of(
                                429,
                                "too-many-workers",
                                "Too many remote workers",
                                "This API process serves "
                                    + settings.maxWorkers
                                    + " remote workers already (api.remoteWorkers.maxWorkers):"
                                    + " stop one, or register with another API process.")
                            .withHeader("Retry-After", "30")));
    return new Registered(
        session.id(),
        namespace,
        r.types(),
        r.concurrency(),
        settings.heartbeatInterval.toMillis(),
        settings.leaseTtl.toMillis(),
        settings.maxWait.toMillis());
  }

  /** The remote worker {@code id} registered in {@code namespace}, if it is still registered. */
  Optional<RemoteSession> find(String namespace, String id) {
    RemoteSession s = sessions.get(id);
    return s != null && s.declared().namespace().equals(namespace)
        ? Optional.of(s)
        : Optional.empty();
  }

  /** Stops a remote worker gracefully (its running attempts get the shutdown grace). */
  void deregister(RemoteSession session) {
    if (sessions.remove(session.id(), session)) {
      Thread.ofVirtual().name("punctual-remote-stop").start(session::close);
    }
  }

  /** Abandons the remote workers silent for longer than {@code leaseTtl}; returns how many. */
  public int runOnce() {
    Instant before = stores.clock().instant().minus(settings.leaseTtl);
    int n = 0;
    for (RemoteSession s : List.copyOf(sessions.values())) {
      if (!s.polling() && s.lastSeen().isBefore(before) && sessions.remove(s.id(), s)) {
        log.warn(
            "remote worker silent since {}, its {} attempts left to the death watch worker={}",
            s.lastSeen(),
            s.holding(),
            s.id());
        s.abandon();
        abandoned.mark();
        n++;
      }
    }
    return n;
  }

  /** Looks for silent remote workers every second from now on. */
  @Override
  public void start() {
    ScheduledFuture<?> unused =
        watching.scheduleWithFixedDelay(
            () -> {
              try {
                runOnce();
              } catch (RuntimeException e) {
                log.warn("remote worker watch failed: {}", e.toString());
              }
            },
            1,
            1,
            TimeUnit.SECONDS);
  }

  @Override
  public void stop() {
    close();
  }

  /**
   * The API process is stopping: every long poll ends within a quarter of a second (answered with
   * what is waiting, or nothing) and later claims do not wait, so the HTTP server's graceful stop
   * does not wait for them; remote workers then find the API gone and come back to another one. The
   * workers stop as usual at {@link #close()}.
   */
  public void drain() {
    draining = true;
    sessions.values().forEach(RemoteSession::drain);
  }

  /** How many remote workers are registered. */
  public int size() {
    return sessions.size();
  }

  /** Stops every remote worker gracefully, at once. */
  @Override
  public void close() {
    Loops.stopNow(watching);
    List<Thread> stopping =
        sessions.values().stream()
            .map(s -> Thread.ofVirtual().name("punctual-remote-stop").start(s::close))
            .toList();
    sessions.clear();
    for (Thread t : stopping) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
