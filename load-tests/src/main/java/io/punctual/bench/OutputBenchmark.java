package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.bench.ThroughputBenchmark.Servers;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.queue.Stores;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.trace.AttemptTracing;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What handlers' progress and log lines cost the drain (issue 35): N jobs drained by the in-process
 * worker with a handler that returns at once (off) and one that first reports its progress twice
 * and logs two lines (on), as alternated pairs; the ratio of each pair (on over off: rate, CPU per
 * job of the worker, PostgreSQL and Redis) and their median. The drain ends when the worker has
 * closed, its last reports written.
 *
 * <p>Usage: {@code OutputBenchmark [--jobs N] [--rounds R] [--json FILE]}; defaults 30,000 jobs, 8
 * rounds after a warm-up round that is not counted.
 */
public final class OutputBenchmark {
  private static final String TYPE = "report";

  private OutputBenchmark() {}

  /** Reports (or not) and succeeds. */
  private record Reporting(boolean on) implements JobHandler {
    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public JobResult handle(JobContext ctx) {
      if (on) {
        ctx.progress(1, 2);
        ctx.log("first half done");
        ctx.progress(2, 2);
        ctx.log("second half done");
      }
      return JobResult.success();
    }
  }

  public static void main(String[] args) throws Exception {
    int jobs = 30_000;
    int rounds = 8;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    int n = jobs;
    int r = rounds;
    InProcessDrains.run("output", json, (stores, servers, out) -> run(stores, servers, n, r, out));
  }

  private static void run(Stores stores, Servers servers, int jobs, int rounds, ObjectNode out)
      throws Exception {
    System.out.printf(
        Locale.ROOT,
        "output: %d jobs per drain, %d rounds after a warm-up; a handler that reports nothing,"
            + " and one that reports progress twice and logs two lines%n",
        jobs,
        rounds);
    InProcessDrains.alternatedPairs(
        rounds,
        on ->
            InProcessDrains.drain(
                stores,
                servers,
                jobs,
                0,
                i -> BenchSupport.noop(Instant.now(), List.of()).toBuilder().type(TYPE).build(),
                AttemptTracing.off(),
                settings -> new JobHandlers().register(new Reporting(on))),
        out);
    out.put("jobs", jobs);
  }
}
