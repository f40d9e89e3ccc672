package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Redis memory one queued job costs: N entries (real job ids, over the four priorities of one
 * namespace) enqueued through the real {@link ReadyQueue}, and {@code used_memory} before and
 * after.
 */
final class ScaleRedisMemory {
  private ScaleRedisMemory() {}

  static ObjectNode measure(String url, int n) {
    ObjectNode result = Json.mapper().createObjectNode();
    RedisConnector client = RedisConnector.standalone(url);
    try (RedisConnection c = client.connect()) {
      long before = usedMemory(c);
      RedisKeys keys = new RedisKeys("mem");
      ReadyQueue queue = new ReadyQueue(c, keys, new QueueSettings());
      List<QueueEntry> batch = new ArrayList<>();
      Instant base = Instant.now().plus(Duration.ofHours(1));
      Priority[] priorities = Priority.values();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        // Real job ids (scheduled-time UUIDs) spread over the four priorities of one namespace.
        Instant runAt = base.plusMillis(i / 10);
        batch.add(
            new QueueEntry(
                io.punctual.model.JobId.forScheduledTime(runAt),
                "default",
                priorities[i % priorities.length],
                runAt));
        if (batch.size() == 1_000) {
          queue.enqueue(batch);
          batch.clear();
        }
      }
      queue.enqueue(batch);
      double seconds = (System.nanoTime() - t0) / 1e9;
      long after = usedMemory(c);
      long keyBytes = 0;
      for (String key : keys.queues("default")) {
        Long usage = c.sync().memoryUsage(key);
        keyBytes += usage == null ? 0 : usage;
      }
      double perJob = (after - before) / (double) n;
      System.out.printf(
          Locale.ROOT,
          "%nRedis memory per queued job: %.0f bytes (used_memory %,d -> %,d for %,d entries over"
              + " 4 priority queues; MEMORY USAGE of the queues %.0f bytes per entry); enqueued"
              + " at %,.0f entries/s%n",
          perJob,
          before,
          after,
          n,
          keyBytes / (double) n,
          n / seconds);
      result.put("queuedJobs", n);
      result.put("usedMemoryBefore", before);
      result.put("usedMemoryAfter", after);
      result.put("bytesPerQueuedJob", Math.round(perJob));
      result.put("memoryUsagePerEntry", Math.round(keyBytes / (double) n));
      result.put("enqueuePerSecond", Math.round(n / seconds));
    } finally {
      client.close();
    }
    return result;
  }

  private static long usedMemory(RedisConnection c) {
    for (String line : c.sync().info("memory").split("\\r?\\n", -1)) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory");
  }
}
