package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.embedded.LocalRedisCluster;
import io.punctual.model.JobId;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The queue on a real local Redis Cluster (3 masters, 3 replicas: {@link LocalRedisCluster}), one
 * namespace split into 1, 3 and 6 shards, measured in one run so the figures compare as ratios on a
 * shared, noisy machine: claims per second (one job per claim, several threads), drained jobs per
 * second (batches), and Redis memory per queued job (used_memory summed over the masters).
 *
 * <p>Usage: {@code ClusterBenchmark [--jobs N] [--threads T] [--batch B] [--json FILE]} (defaults
 * 100,000 jobs, 8 threads, batches of 50).
 */
public final class ClusterBenchmark {
  private ClusterBenchmark() {}

  public static void main(String[] args) throws Exception {
    int jobs = 100_000;
    int threads = 8;
    int batch = 50;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--batch" -> batch = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("cluster");
    out.put("jobs", jobs);
    out.put("threads", threads);
    out.put("batch", batch);
    ArrayNode runs = out.putArray("runs");
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      double[] base = null;
      for (int shards : new int[] {1, 3, 6}) {
        ObjectNode r = run(cluster, shards, jobs, threads, batch);
        runs.add(r);
        double claims = r.get("claimsPerSecond").asDouble();
        double drained = r.get("drainedPerSecond").asDouble();
        if (base == null) {
          base = new double[] {claims, drained};
        }
        r.put("claimsRatio", Math.round(100 * claims / base[0]) / 100.0);
        r.put("drainedRatio", Math.round(100 * drained / base[1]) / 100.0);
        System.out.printf(
            Locale.ROOT,
            "shards=%d: %,.0f claims/s (x%.2f), %,.0f drained jobs/s (x%.2f), %.0f bytes per"
                + " queued job%n",
            shards,
            claims,
            claims / base[0],
            drained,
            drained / base[1],
            r.get("bytesPerQueuedJob").asDouble());
      }
    }
    String text = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(out);
    System.out.println(text);
    if (json != null) {
      Files.writeString(json, text);
    }
  }

  private static ObjectNode run(
      LocalRedisCluster cluster, int shards, int jobs, int threads, int batch) throws Exception {
    ObjectNode r = Json.mapper().createObjectNode();
    r.put("shards", shards);
    RedisSettings settings = new RedisSettings();
    settings.cluster = cluster.seeds();
    settings.keyPrefix = "bench" + shards;
    settings.queueShards = shards;
    try (RedisConnector connector = RedisConnector.create(settings);
        RedisConnection redis = connector.connect()) {
      ReadyQueue queue =
          new ReadyQueue(redis, new RedisKeys(settings.keyPrefix, shards), new QueueSettings());
      long before = usedMemory(cluster);
      Instant now = Instant.now();
      Priority[] priorities = Priority.values();
      List<QueueEntry> page = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        Instant runAt = now.minusMillis(jobs - i);
        page.add(
            new QueueEntry(
                JobId.forScheduledTime(runAt),
                "default",
                priorities[i % priorities.length],
                runAt));
        if (page.size() == 1_000) {
          queue.enqueue(page);
          page.clear();
        }
      }
      queue.enqueue(page);
      long after = usedMemory(cluster);
      r.put("bytesPerQueuedJob", Math.round((after - before) / (double) jobs));
      // claims of one job each, by several threads, for a fifth of the jobs
      int singles = jobs / 5;
      double singleSeconds = drain(queue, threads, 1, singles);
      r.put("claimsPerSecond", Math.round(singles / singleSeconds));
      // the rest drained in batches
      int rest = jobs - singles;
      double restSeconds = drain(queue, threads, batch, rest);
      r.put("drainedPerSecond", Math.round(rest / restSeconds));
    }
    return r;
  }

  /**
   * Claims {@code total} jobs with {@code threads} threads, {@code max} per claim; seconds taken.
   */
  private static double drain(ReadyQueue queue, int threads, int max, int total) throws Exception {
    AtomicLong taken = new AtomicLong();
    Instant now = Instant.now();
    long t0 = System.nanoTime();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  while (taken.get() < total) {
                    int n = queue.claim("default", max, now).claimed().size();
                    if (n == 0) {
                      return;
                    }
                    taken.addAndGet(n);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  private static long usedMemory(LocalRedisCluster cluster) {
    long sum = 0;
    for (int port : cluster.masterPorts()) {
      for (String line : cluster.cli(port, "info", "memory").split("\\r?\\n", -1)) {
        if (line.startsWith("used_memory:")) {
          sum += Long.parseLong(line.substring("used_memory:".length()).trim());
        }
      }
    }
    return sum;
  }
}
