package io.punctual.api.keys;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.api.auth.ApiKey;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A key as the API shows it. {@code secret} is present only in the answer to its creation: it is
 * not stored and cannot be shown again.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KeyRepresentation(
    UUID id,
    String name,
    String prefix,
    String role,
    List<String> namespaces,
    Instant createdAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) Instant lastUsedAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) Instant expiresAt,
    String secret) {
  static KeyRepresentation of(ApiKey key) {
    return withSecret(key, null);
  }

  static KeyRepresentation withSecret(ApiKey key, String secret) {
    return new KeyRepresentation(
        key.id(),
        key.name(),
        key.prefix(),
        key.role().wireName(),
        key.namespaces(),
        key.createdAt(),
        key.lastUsedAt(),
        key.expiresAt(),
        secret);
  }
}
