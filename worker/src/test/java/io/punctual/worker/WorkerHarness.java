package io.punctual.worker;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Execution;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.WorkflowStore;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.namespace.Egress;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.store.testing.TestStores;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.trace.AttemptTracing;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A fresh database and Redis prefix, the {@link Stores} over them, and workers started on them.
 * Jobs are submitted the way the API does it: stored, then enqueued when within the horizon.
 */
public final class WorkerHarness implements AutoCloseable {
  public final PostgresSettings postgres;
  public final RedisSettings redis;
  public final QueueSettings queueSettings;
  public final Stores stores;
  public final MetricRegistry metrics = new MetricRegistry();
  private final List<Stores> extraStores = new ArrayList<>();
  private final List<Worker> workers = new ArrayList<>();

  public WorkerHarness() {
    this(new QueueSettings());
  }

  public WorkerHarness(QueueSettings queueSettings) {
    this(queueSettings, TestRedis.newRedis());
  }

  /** On the given Redis (a cluster's, sharded, for instance). */
  public WorkerHarness(QueueSettings queueSettings, RedisSettings redis) {
    TestStores servers = TestStores.get();
    this.postgres = servers.newDatabase();
    this.redis = redis;
    this.queueSettings = queueSettings;
    this.stores = new Stores(postgres, redis, queueSettings, Clock.systemUTC(), "worker-test");
    stores.partitions().ensureAhead();
  }

  /** The deployment's secrets key of these tests: signing secrets are stored sealed. */
  public static final byte[] SECRETS_KEY = "the worker tests' 32-byte secret".getBytes(US_ASCII);

  /** The namespaces' signing secrets in this harness's database. */
  public SigningSecrets signingSecrets() {
    return new SigningSecrets(
        stores.database().jdbi(), stores.clock(), SecretSealer.withKey(SECRETS_KEY));
  }

  /**
   * The built-in handlers, the {@code http} one signing with the namespaces' secrets and calling
   * what their egress grants allow (set with {@code stores.namespaces().setEgress}).
   */
  public JobHandlers builtIns(WorkerSettings settings) {
    return JobHandlers.withBuiltIns(
        settings,
        Clock.systemUTC(),
        new HttpHandler.Tenancy(
            WebhookSigner.caching(signingSecrets()::signingKeysOf, stores.clock()),
            stores.namespaces()::egressOf));
  }

  /**
   * Lets namespace {@code namespace} (made if it has no row) call this machine's loopback, where
   * the tests' receivers listen, and keep the answers.
   */
  public void allowLoopbackCallbacks(String namespace) {
    stores.namespaces().ensure(namespace);
    stores.namespaces().setEgress(namespace, new Egress(List.of("127.0.0.1/32"), true));
  }

  /** Settings suited to tests: short heartbeats and grace, a unique id. */
  public static WorkerSettings settings() {
    WorkerSettings s = new WorkerSettings();
    s.workerId = "w-" + UUID.randomUUID().toString().substring(0, 8);
    s.heartbeatInterval = Duration.ofMillis(200);
    s.leaseTtl = Duration.ofSeconds(5);
    s.shutdownGrace = Duration.ofSeconds(5);
    s.maxIdleWait = Duration.ofSeconds(2);
    return s;
  }

  public Worker start(WorkerSettings settings, JobHandlers handlers) {
    return start(stores, settings, handlers, metrics);
  }

  /** A worker with its own connections (as another process would have). */
  public Worker startSeparate(WorkerSettings settings, JobHandlers handlers, MetricRegistry m) {
    Stores own = new Stores(postgres, redis, queueSettings, Clock.systemUTC(), "worker-test-2");
    extraStores.add(own);
    return start(own, settings, handlers, m);
  }

  /** A worker whose attempts are traced with {@code tracing}. */
  public Worker startTraced(WorkerSettings settings, JobHandlers handlers, AttemptTracing tracing) {
    Worker worker = new Worker(stores, settings, handlers, metrics, tracing);
    workers.add(worker);
    worker.start();
    return worker;
  }

  private Worker start(Stores on, WorkerSettings settings, JobHandlers handlers, MetricRegistry m) {
    Worker worker = new Worker(on, settings, handlers, m);
    workers.add(worker);
    worker.start();
    return worker;
  }

  public Job submit(NewJob job) {
    return submit(List.of(job)).get(0);
  }

  public List<Job> submit(List<NewJob> jobs) {
    List<Job> stored = stores.submissions().submit(jobs).stream().map(Submitted::job).toList();
    List<QueueEntry> entries = new ArrayList<>();
    for (Job j : stored) {
      if (j.status() == JobState.PENDING) {
        entries.add(new QueueEntry(j.id(), j.namespace(), j.priority(), j.runAt()));
      }
    }
    stores.queue().enqueue(entries);
    return stored;
  }

  /** Stores a workflow and enqueues its steps that are PENDING, the way the API does. */
  public WorkflowStore.Workflow submitWorkflow(List<WorkflowStore.NewStep> steps) {
    WorkflowStore.Workflow w = stores.workflows().create("default", steps, null, null).workflow();
    List<QueueEntry> entries = new ArrayList<>();
    for (WorkflowStore.Step s : w.steps()) {
      Job j = s.job();
      if (j.status() == JobState.PENDING) {
        entries.add(new QueueEntry(j.id(), j.namespace(), j.priority(), j.runAt()));
      }
    }
    stores.queue().enqueue(entries);
    return w;
  }

  public Job find(Job job) {
    return stores.queries().find(job.namespace(), job.id()).orElseThrow();
  }

  public Job awaitState(Job job, JobState state) {
    return awaitState(job, state, Duration.ofSeconds(10));
  }

  public Job awaitState(Job job, JobState state, Duration within) {
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> find(job).status() == state);
    return find(job);
  }

  public List<Execution> executions(Job job) {
    return stores.queries().executions(job.namespace(), job.id());
  }

  /** The most executions of {@code jobs} that overlapped in time (from their rows). */
  public int mostOverlapping(List<Job> jobs) {
    List<long[]> events = new ArrayList<>();
    for (Job job : jobs) {
      for (Execution e : executions(job)) {
        events.add(new long[] {e.startedAt().toEpochMilli() * 2 + 1, 1});
        events.add(new long[] {e.finishedAt().toEpochMilli() * 2, -1});
      }
    }
    // An end and a start in the same millisecond: the end first (they did not overlap).
    events.sort((a, b) -> Long.compare(a[0], b[0]));
    int now = 0;
    int most = 0;
    for (long[] e : events) {
      now += (int) e[1];
      most = Math.max(most, now);
    }
    return most;
  }

  public long count(String sql) {
    return stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  /** Waits for a meter to reach {@code count} (meters are marked just after the write). */
  public void awaitMeter(String name, long count) {
    await().atMost(Duration.ofSeconds(5)).until(() -> meter(name) == count);
  }

  public long meter(String name) {
    return metrics.meter(WorkerMetrics.PREFIX + name).getCount();
  }

  @Override
  public void close() {
    for (Worker w : workers) {
      w.close();
    }
    for (Stores s : extraStores) {
      s.close();
    }
    stores.close();
  }
}
