package io.punctual.store.limit;

/**
 * The key of a concurrency limit an attempt holds a slot of: job type and key value in a namespace,
 * with the limit's concurrency as the claim saw it.
 */
public record SlotKey(String namespace, String type, String key, int concurrency) {}
