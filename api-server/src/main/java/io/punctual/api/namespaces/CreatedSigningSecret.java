package io.punctual.api.namespaces;

import io.punctual.outbound.signing.SigningSecret;
import io.punctual.store.secret.SigningSecrets;
import java.time.Instant;
import java.util.UUID;

/**
 * A signing secret just made: its value ({@code whsec_} and the base64 of 32 random bytes), in the
 * answer that made it and never again.
 */
public record CreatedSigningSecret(UUID id, String secret, Instant createdAt) {
  static CreatedSigningSecret of(SigningSecrets.Created created) {
    return new CreatedSigningSecret(
        created.id(), SigningSecret.ofKey(created.key()).text(), created.createdAt());
  }

  @Override
  public String toString() {
    return "CreatedSigningSecret[id=" + id + ", createdAt=" + createdAt + ", secret=(hidden)]";
  }
}
