package io.punctual.api.queues;

import com.codahale.metrics.annotation.Timed;
import io.lettuce.core.Range;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import io.punctual.model.Priority;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /api/v1/queues/depth}: how many jobs wait in the request's namespace's Redis queues,
 * per priority: {@code due} (run time reached, waiting for a worker) and {@code future} (promoted
 * ahead of their run time). Eight {@code ZCOUNT}s sent at once, each O(log n): cheap enough to
 * poll. Jobs further ahead than the promoter's horizon are in PostgreSQL only and not counted here.
 */
@Path("/api/v1/queues/depth")
@Produces(MediaType.APPLICATION_JSON)
public final class QueueDepthResource {
  /** One priority's queue. */
  public record Depth(String priority, long due, long future) {}

  /** The answer: the namespace, when it was read, and one entry per priority, highest first. */
  public record Depths(String namespace, Instant at, List<Depth> priorities) {}

  private final RedisConnection redis;
  private final RedisKeys keys;
  private final Clock clock;
  private final Duration timeout;

  public QueueDepthResource(RedisConnection redis, RedisKeys keys, Clock clock, Duration timeout) {
    this.redis = redis;
    this.keys = keys;
    this.clock = clock;
    this.timeout = timeout;
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public Depths depth(@Context ContainerRequestContext request) {
    String namespace = RequestContext.of(request).namespace();
    Instant now = clock.instant();
    double nowMs = now.toEpochMilli();
    RedisClusterAsyncCommands<String, String> commands = redis.async();
    List<CompletableFuture<Long>> due = new ArrayList<>();
    List<CompletableFuture<Long>> future = new ArrayList<>();
    // Every shard of each priority's queue (redis.queueShards), summed below.
    for (Priority priority : Priority.values()) {
      for (int shard = 0; shard < keys.shards(); shard++) {
        String key = keys.queue(namespace, priority, shard);
        due.add(
            commands
                .zcount(key, Range.create(Double.NEGATIVE_INFINITY, nowMs))
                .toCompletableFuture());
        future.add(
            commands
                .zcount(
                    key,
                    Range.from(
                        Range.Boundary.excluding(nowMs),
                        Range.Boundary.including(Double.POSITIVE_INFINITY)))
                .toCompletableFuture());
      }
    }
    List<CompletableFuture<Long>> all = new ArrayList<>(due);
    all.addAll(future);
    CompletableFuture<Void> answered =
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    try {
      answered.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable();
    } catch (Exception e) {
      answered.cancel(false);
      throw unavailable();
    }
    List<Depth> depths = new ArrayList<>();
    Priority[] priorities = Priority.values();
    int shards = keys.shards();
    for (int i = 0; i < priorities.length; i++) {
      long dueNow = 0;
      long later = 0;
      for (int shard = 0; shard < shards; shard++) {
        dueNow += due.get(i * shards + shard).join();
        later += future.get(i * shards + shard).join();
      }
      depths.add(new Depth(priorities[i].wireName(), dueNow, later));
    }
    return new Depths(namespace, now, depths);
  }

  private static ProblemException unavailable() {
    return new ProblemException(Problems.unavailable("Redis did not answer in time.", 1));
  }
}
