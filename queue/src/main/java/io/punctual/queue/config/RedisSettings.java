package io.punctual.queue.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.RedisURI;
import io.punctual.common.config.SettingsErrors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Where Redis is, how keys are named, and which nodes take part in Redlock leases. */
public class RedisSettings {
  /** The Redis holding the queues. Env: {@code PUNCTUAL_REDIS_URL}. */
  @JsonProperty public String url = "redis://127.0.0.1:6379";

  /**
   * Seed URIs of a Redis Cluster holding the queues (any few of its nodes; the rest is discovered).
   * Empty: {@code url} is a standalone server. Env: {@code PUNCTUAL_REDIS_CLUSTER}, comma-separated
   * (so the setting also takes one comma-separated string).
   */
  @JsonProperty public List<String> cluster = new ArrayList<>();

  /**
   * Sorted sets each priority queue of a namespace is split into, on different cluster slots (hash
   * tags {@code {ns}}, {@code {ns#1}} ... {@code {ns#S-1}}); a job goes to one by a hash of its id.
   * 1 (the default) keeps a namespace's queue on one slot, as before.
   */
  @JsonProperty public int queueShards = 1;

  /**
   * Independent Redis nodes for Redlock leases. Empty: the queue Redis alone (quorum of one). With
   * N nodes a lease needs a majority of them.
   */
  @JsonProperty public List<String> leaseNodes = new ArrayList<>();

  /**
   * With {@link #leaseNodes}: how long a node that lost its data (restarted empty, flushed) takes
   * no part in leases, so that it cannot grant a second holder a lease it forgot. At least the
   * longest lease TTL ({@code worker.leaseTtl}); {@code PT0S}: no delay (the attempt-number fence
   * in PostgreSQL alone keeps a second holder's writes out).
   */
  @JsonProperty public Duration leaseNodeRestartDelay = Duration.ofMinutes(1);

  /**
   * First part of every key. Queue keys carry the namespace as a cluster hash tag, e.g. {@code
   * punctual:{default}:q:normal}, so one namespace's queues share a slot.
   */
  @JsonProperty public String keyPrefix = "punctual";

  public RedisSettings() {}

  public RedisSettings(String url, String keyPrefix) {
    this.url = url;
    this.keyPrefix = keyPrefix;
  }

  /** Takes a list of URIs, or one string of comma-separated URIs (blank: none). */
  @JsonSetter("cluster")
  public void setCluster(JsonNode value) {
    List<String> seeds = new ArrayList<>();
    if (value != null && value.isArray()) {
      value.forEach(v -> seeds.add(v.asText()));
    } else if (value != null && !value.isNull()) {
      for (String part : value.asText().split(",", -1)) {
        if (!part.isBlank()) {
          seeds.add(part.trim());
        }
      }
    }
    this.cluster = seeds;
  }

  /** Whether the queues live on a Redis Cluster ({@code redis.cluster} set). */
  public boolean isCluster() {
    return cluster != null && !cluster.isEmpty();
  }

  /** Adds every setting that makes no sense to {@code errors}. */
  public void validate(SettingsErrors errors) {
    requireRedisUrl(errors, url, "redis.url");
    if (cluster != null) {
      for (int i = 0; i < cluster.size(); i++) {
        requireRedisUrl(errors, cluster.get(i), "redis.cluster[" + i + "]");
      }
    }
    errors.require(
        queueShards >= 1 && queueShards <= 64, "redis.queueShards must be between 1 and 64");
    errors.require(keyPrefix != null && !keyPrefix.isBlank(), "redis.keyPrefix is required");
    errors.require(
        leaseNodeRestartDelay != null && !leaseNodeRestartDelay.isNegative(),
        "redis.leaseNodeRestartDelay must be zero or positive");
    if (leaseNodes == null) {
      errors.add("redis.leaseNodes must be a list (or left out)");
    } else {
      for (int i = 0; i < leaseNodes.size(); i++) {
        requireRedisUrl(errors, leaseNodes.get(i), "redis.leaseNodes[" + i + "]");
      }
    }
  }

  /** A URL the Redis client takes (its own parser decides, as when connecting). */
  private static void requireRedisUrl(SettingsErrors errors, String url, String name) {
    if (url == null || url.isBlank()) {
      errors.add(name + " is required");
      return;
    }
    try {
      RedisURI.create(url);
    } catch (RuntimeException e) {
      errors.add(
          name
              + " is not a Redis URL (redis://host:port, rediss://, redis-socket:// or"
              + " redis-sentinel://): "
              + url
              + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
    }
  }
}
