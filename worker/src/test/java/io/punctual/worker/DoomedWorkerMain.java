package io.punctual.worker;

import com.codahale.metrics.MetricRegistry;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Clock;
import java.time.Duration;

/**
 * A real worker in a process of its own, for {@link KilledWorkerChainIT} to kill with SIGKILL: its
 * {@code step} handler prints {@code started <job id>} and then hangs, so the process dies in the
 * middle of it (no graceful shutdown, no completion, no lease release). Arguments: PostgreSQL URL,
 * user, password, Redis URL, Redis key prefix, worker id; optionally its lease TTL and its
 * claimWriteAfter (ISO-8601 durations).
 */
public final class DoomedWorkerMain {
  private DoomedWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresSettings postgres = new PostgresSettings(args[0], args[1], args[2]);
    postgres.maxPoolSize = 4;
    Stores stores =
        new Stores(
            postgres,
            new RedisSettings(args[3], args[4]),
            new QueueSettings(),
            Clock.systemUTC(),
            "doomed-worker");
    WorkerSettings settings = new WorkerSettings();
    settings.workerId = args[5];
    settings.heartbeatInterval = Duration.ofMillis(200);
    settings.leaseTtl = args.length > 6 ? Duration.parse(args[6]) : Duration.ofSeconds(2);
    if (args.length > 7) {
      settings.claimWriteAfter = Duration.parse(args[7]);
    }
    settings.maxIdleWait = Duration.ofMillis(500);
    JobHandler hangs =
        new JobHandler() {
          @Override
          public String type() {
            return "step";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            System.out.println("started " + ctx.jobId());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
            return JobResult.success();
          }
        };
    new Worker(stores, settings, new JobHandlers().register(hangs), new MetricRegistry()).start();
    Thread.currentThread().join();
  }
}
