package io.punctual.common.limit;

/**
 * The key of a concurrency limit an attempt holds a slot of: job type and key value in a namespace,
 * with the limit's concurrency as the claim saw it.
 */
public record SlotKey(String namespace, String type, String key, int concurrency) {
  /** The field naming this key in the Redis hashes and hold-set keys: type and key, NUL apart. */
  public String field() {
    return LimitKeys.field(type, key);
  }
}
