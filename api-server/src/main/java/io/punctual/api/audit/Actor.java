package io.punctual.api.audit;

import java.util.List;
import java.util.UUID;

/**
 * Who sent a request, as far as the audit log is concerned: the key's id and name (both null when
 * unknown), the namespace the request acted in (null when it was refused before one was known), and
 * the namespaces the key may act in ({@code ["*"]} for all; empty when unknown), which bound what
 * its holder may read of the audit log.
 */
public record Actor(UUID keyId, String keyName, String namespace, List<String> keyNamespaces) {
  public Actor {
    keyNamespaces = keyNamespaces == null ? List.of() : List.copyOf(keyNamespaces);
  }

  /**
   * What is known of the sender of a refused request: its key's id and name (or the non-secret
   * prefix of the key it presented, or nulls) and the namespace it named, if valid.
   */
  public static Actor refused(UUID keyId, String keyName, String namespace) {
    return new Actor(keyId, keyName, namespace, List.of());
  }
}
