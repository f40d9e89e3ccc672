package io.punctual.api.auth;

import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Sets;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** The role of an API key: a fixed set of {@link Permission}s. Wire names are lower case. */
public enum Role {
  /** Reads only. */
  VIEWER(Set.of(Permission.READ)),
  /** Submits and reads: for services. */
  SUBMITTER(Set.of(Permission.READ, Permission.SUBMIT)),
  /** Submits, reads and steers jobs, schedules and workflows in its namespaces. */
  OPERATOR(Set.of(Permission.READ, Permission.SUBMIT, Permission.OPERATE)),
  /**
   * Runs jobs over the worker protocol ({@code /api/v1/workers}) in its namespaces, and nothing
   * else: it can neither read nor submit jobs.
   */
  WORKER(Set.of(Permission.WORK)),
  /** Everything, keys, namespaces and the audit log included. */
  ADMIN(Set.of(Permission.values()));

  private final ImmutableSet<Permission> permissions;

  Role(Set<Permission> permissions) {
    this.permissions = Sets.immutableEnumSet(permissions);
  }

  public boolean allows(Permission permission) {
    return permissions.contains(permission);
  }

  /** Whether this role may do everything {@code other} may (roles are not a line: see WORKER). */
  public boolean includes(Role other) {
    return permissions.containsAll(other.permissions);
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
