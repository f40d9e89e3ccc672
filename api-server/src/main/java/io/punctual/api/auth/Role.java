package io.punctual.api.auth;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** The role of an API key: a fixed set of {@link Permission}s. Wire names are lower case. */
public enum Role {
  /** Reads only. */
  VIEWER(EnumSet.of(Permission.READ)),
  /** Submits and reads: for services. */
  SUBMITTER(EnumSet.of(Permission.READ, Permission.SUBMIT)),
  /** Submits, reads and steers jobs, schedules and workflows in its namespaces. */
  OPERATOR(EnumSet.of(Permission.READ, Permission.SUBMIT, Permission.OPERATE)),
  /** Everything, keys, namespaces and the audit log included. */
  ADMIN(EnumSet.allOf(Permission.class));

  private final Set<Permission> permissions;

  Role(Set<Permission> permissions) {
    this.permissions = permissions;
  }

  public boolean allows(Permission permission) {
    return permissions.contains(permission);
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role named {@code name} as on the wire ({@code "operator"}), if any. */
  public static Optional<Role> parse(String name) {
    for (Role role : values()) {
      if (role.wireName().equals(name)) {
        return Optional.of(role);
      }
    }
    return Optional.empty();
  }
}
