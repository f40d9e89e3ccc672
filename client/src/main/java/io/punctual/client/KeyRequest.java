package io.punctual.client;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A new API key: its {@code name} (1 to 200 characters), {@code role}, the {@code namespaces} it
 * may act in ({@code ["*"]} for every one; an admin key must give exactly that), and optionally
 * when it expires (null: never).
 */
public record KeyRequest(String name, KeyRole role, List<String> namespaces, Instant expiresAt) {
  /** Every namespace, as {@code namespaces} of a key. */
  public static final String ALL_NAMESPACES = "*";

  public KeyRequest {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    namespaces = List.copyOf(Objects.requireNonNull(namespaces, "namespaces"));
  }

  /** A key of {@code role} in {@code namespaces} that does not expire. */
  public static KeyRequest of(String name, KeyRole role, String... namespaces) {
    return new KeyRequest(name, role, List.of(namespaces), null);
  }

  /** An admin key (admins act in every namespace). */
  public static KeyRequest admin(String name) {
    return of(name, KeyRole.ADMIN, ALL_NAMESPACES);
  }

  /** The same key, expiring at {@code at}. */
  public KeyRequest expiringAt(Instant at) {
    return new KeyRequest(name, role, namespaces, at);
  }
}
