package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.store.namespace.Quota;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Namespaces share a worker's slots (FairShare): one namespace's backlog of thousands of due jobs
 * does not hold up another's jobs, and two backlogged namespaces start jobs in proportion to their
 * weights. On the real PostgreSQL and Redis; every job takes {@link #JOB} in its handler.
 */
class NamespaceFairnessIT {
  private static final Duration JOB = Duration.ofMillis(20);
  private static final int SLOTS = 8;

  private final WorkerHarness harness = new WorkerHarness();
  private final Timed handler = new Timed();

  @AfterEach
  void close() {
    harness.close();
  }

  /** Records when each job started, then takes {@link #JOB}. */
  private static final class Timed implements JobHandler {
    final Map<UUID, Instant> started = new ConcurrentHashMap<>();
    final List<String> namespaces = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "timed";
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      started.put(ctx.jobId(), Instant.now());
      namespaces.add(ctx.namespace());
      Thread.sleep(JOB.toMillis());
      return JobResult.success();
    }

    long startedIn(String ns) {
      return namespaces.stream().filter(ns::equals).count();
    }
  }

  private void backlog(String ns, int n) {
    Instant due = Instant.now().minusSeconds(1);
    for (int done = 0; done < n; done += 500) {
      List<NewJob> jobs = new ArrayList<>();
      for (int i = done; i < Math.min(n, done + 500); i++) {
        jobs.add(aJob().namespace(ns).type("timed").runAt(due).build());
      }
      harness.submit(jobs);
    }
  }

  private void start() {
    WorkerSettings settings = WorkerHarness.settings();
    settings.namespaces = List.of("a", "b");
    settings.concurrency = SLOTS;
    harness.start(settings, new JobHandlers().register(handler));
  }

  @Test
  void aTrickleStartsOnTimeWhileAnotherNamespaceHasThousandsDue() throws InterruptedException {
    harness.stores.namespaces().create("a", Quota.UNLIMITED);
    harness.stores.namespaces().create("b", Quota.UNLIMITED);
    backlog("a", 4000); // 4000 x 20 ms over 8 slots: 10 s of work, all due now
    start();
    await().atMost(Duration.ofSeconds(30)).until(() -> handler.startedIn("a") >= 200);

    List<Job> trickle = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      trickle.add(harness.submit(aJob().namespace("b").type("timed").runAt(Instant.now()).build()));
      Thread.sleep(100);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> trickle.stream().allMatch(j -> handler.started.containsKey(j.id())));

    // a was behind the whole time: had b's jobs queued behind it, each would have waited seconds.
    assertThat(harness.stores.namespaces().countPending("a", 10_000)).isGreaterThan(1000);
    Duration worst = Duration.ZERO;
    for (Job j : trickle) {
      Duration lag = Duration.between(j.runAt(), handler.started.get(j.id()));
      worst = lag.compareTo(worst) > 0 ? lag : worst;
    }
    // By design a due job of b takes one of the first two slots that free (every 2.5 ms here),
    // in the next claim pass; 1 s is 50 job durations of slack for a loaded machine, and a tenth
    // of what a's backlog would have made b wait in turn.
    assertThat(worst).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void twoBackloggedNamespacesStartJobsByTheirWeights() {
    harness.stores.namespaces().create("a", Quota.UNLIMITED, 3);
    harness.stores.namespaces().create("b", Quota.UNLIMITED, 1);
    backlog("a", 3000);
    backlog("b", 3000);
    start();

    await().atMost(Duration.ofSeconds(60)).until(() -> handler.namespaces.size() >= 1200);
    long a = handler.startedIn("a");
    long b = handler.startedIn("b");

    assertThat(a).isLessThan(3000); // both still backlogged: the split is the weights'
    assertThat(b).isLessThan(3000);
    assertThat((double) a / b).isBetween(2.5, 3.6);
  }
}
