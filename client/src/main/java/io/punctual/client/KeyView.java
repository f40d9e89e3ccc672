package io.punctual.client;

import java.time.Instant;
import java.util.List;

/**
 * An API key as the API shows it: never its secret (see {@link CreatedKey}). {@code prefix} is the
 * secret's first characters, to tell keys apart; {@code lastUsedAt} is recorded at most once per
 * the server's {@code auth.cacheFor}.
 */
public record KeyView(
    String id,
    String name,
    String prefix,
    KeyRole role,
    List<String> namespaces,
    Instant createdAt,
    Instant lastUsedAt,
    Instant expiresAt) {

  public KeyView {
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
  }
}
