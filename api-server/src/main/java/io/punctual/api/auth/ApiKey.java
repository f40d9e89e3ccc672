package io.punctual.api.auth;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An API key as stored, without its secret: what {@code GET /api/v1/keys} lists and what the
 * authenticator turns into a {@link Principal}.
 *
 * @param prefix the secret's first {@link KeySecrets#PREFIX_LENGTH} characters: public, shown so
 *     that a person can tell keys apart
 * @param expiresAt null: never
 */
public record ApiKey(
    UUID id,
    String name,
    String prefix,
    Role role,
    List<String> namespaces,
    Instant createdAt,
    Instant lastUsedAt,
    Instant expiresAt) {
  public ApiKey {
    namespaces = List.copyOf(namespaces);
  }

  public Principal principal() {
    return new Principal(id, name, role, namespaces);
  }

  public boolean expiredAt(Instant now) {
    return expiresAt != null && !expiresAt.isAfter(now);
  }
}
