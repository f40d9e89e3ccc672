package io.punctual.common.namespace;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which namespaces are deactivated, as last read from PostgreSQL: the worker asks it before each
 * claim, so that the queues of an inactive namespace are left alone and taken up again once it is
 * reactivated. The set is read again by the first question after {@code refresh} has passed (on the
 * asking thread: a claim loop's pass pays one short query every {@code refresh}); a failed read
 * keeps the set it had and is tried again after {@code refresh}. A namespace without a row is
 * active.
 */
public final class InactiveNamespaces {
  private static final Logger log = LoggerFactory.getLogger(InactiveNamespaces.class);

  private final Namespaces store;
  private final Clock clock;
  private final Duration refresh;
  private volatile Set<String> inactive = Set.of();
  private volatile Instant nextRead = Instant.MIN;

  public InactiveNamespaces(Namespaces store, Clock clock, Duration refresh) {
    this.store = store;
    this.clock = clock;
    this.refresh = refresh;
  }

  /** Whether jobs of {@code namespace} may be claimed; reads the set again when it is due. */
  public boolean isActive(String namespace) {
    if (!clock.instant().isBefore(nextRead)) {
      runOnce();
    }
    return !inactive.contains(namespace);
  }

  /** Reads the set of inactive namespaces now; on a failure keeps the last one. */
  public synchronized void runOnce() {
    Instant now = clock.instant();
    nextRead = now.plus(refresh);
    try {
      Set<String> read = Set.copyOf(store.inactive());
      if (!read.equals(inactive)) {
        log.info("inactive namespaces now {}", read);
      }
      inactive = read;
    } catch (RuntimeException e) {
      log.warn("could not read inactive namespaces; keeping {}: {}", inactive, e.toString());
    }
  }
}
