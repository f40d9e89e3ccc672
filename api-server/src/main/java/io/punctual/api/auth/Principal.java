package io.punctual.api.auth;

import java.util.List;
import java.util.UUID;

/**
 * Who sent a request: the API key it carried (its id, name, role and the namespaces it may act in),
 * or {@link #AUTH_DISABLED} when authentication is switched off.
 *
 * @param keyId the key's id; null only for {@link #AUTH_DISABLED}
 * @param namespaces the namespaces the key may act in; {@code ["*"]} for all
 */
public record Principal(UUID keyId, String keyName, Role role, List<String> namespaces) {
  /** Every namespace. */
  public static final String ALL_NAMESPACES = "*";

  /** The caller of every request while {@code auth.enabled} is false: an admin of everything. */
  public static final Principal AUTH_DISABLED =
      new Principal(null, "(auth disabled)", Role.ADMIN, List.of(ALL_NAMESPACES));

  public Principal {
    namespaces = List.copyOf(namespaces);
  }

  /** Whether this key may act in {@code namespace}. */
  public boolean mayActIn(String namespace) {
    return namespaces.contains(ALL_NAMESPACES) || namespaces.contains(namespace);
  }

  public boolean allows(Permission permission) {
    return role.allows(permission);
  }
}
