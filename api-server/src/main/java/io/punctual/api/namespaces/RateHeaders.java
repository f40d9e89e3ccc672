package io.punctual.api.namespaces;

import java.util.function.BiConsumer;

/**
 * The {@code RateLimit} and {@code RateLimit-Policy} headers (draft-ietf-httpapi-ratelimit-headers)
 * an admitted submit answers with: filled by {@link NamespaceGate} from what the namespace's token
 * bucket answered (so they cost no Redis round trip of their own), written by the resource on its
 * 2xx. Empty for a namespace without a rate quota, or when Redis did not answer. One per request.
 */
public final class RateHeaders {
  private String policy;
  private String limit;

  void set(String policy, String limit) {
    this.policy = policy;
    this.limit = limit;
  }

  /** Hands each header (name, value) to {@code header}; nothing when there are none. */
  public void writeTo(BiConsumer<String, String> header) {
    if (limit != null) {
      header.accept("RateLimit-Policy", policy);
      header.accept("RateLimit", limit);
    }
  }
}
