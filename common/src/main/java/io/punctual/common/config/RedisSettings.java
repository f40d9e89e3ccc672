package io.punctual.common.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/** Where Redis is, how keys are named, and which nodes take part in Redlock leases. */
public class RedisSettings {
  /** The Redis holding the queues. Env: {@code PUNCTUAL_REDIS_URL}. */
  @JsonProperty public String url = "redis://127.0.0.1:6379";

  /**
   * Independent Redis nodes for Redlock leases. Empty: the queue Redis alone (quorum of one). With
   * N nodes a lease needs a majority of them.
   */
  @JsonProperty public List<String> leaseNodes = new ArrayList<>();

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
}
