package io.punctual.store.namespace;

import io.punctual.store.namespace.Namespaces.ClaimSetting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which namespaces are deactivated, each one's weight and the caps on its running attempts, as last
 * read from PostgreSQL: the worker asks it before each claim, so that the queues of an inactive
 * namespace are left alone and taken up again once it is reactivated, so that the free slots are
 * shared by weight, and so that a capped namespace's claims take its slots lock. They are read
 * again by the first question after {@code refresh} has passed (on the asking thread: a claim
 * loop's pass pays one short query every {@code refresh}); a failed read keeps what it had and is
 * tried again after {@code refresh}. A namespace without a row is active, of weight {@value
 * Namespace#DEFAULT_WEIGHT}.
 */
public final class ClaimableNamespaces {
  private static final Logger log = LoggerFactory.getLogger(ClaimableNamespaces.class);

  private final Namespaces store;
  private final Clock clock;
  private final Duration refresh;
  private volatile Map<String, ClaimSetting> settings = Map.of();
  private volatile Instant nextRead = Instant.MIN;
  private volatile Instant lastRead = Instant.MIN;

  public ClaimableNamespaces(Namespaces store, Clock clock, Duration refresh) {
    this.store = store;
    this.clock = clock;
    this.refresh = refresh;
  }

  /** Whether jobs of {@code namespace} may be claimed; reads the rows again when it is due. */
  public boolean isActive(String namespace) {
    ClaimSetting s = current().get(namespace);
    return s == null || s.active();
  }

  /** The namespace's weight; reads the rows again when it is due. */
  public int weight(String namespace) {
    ClaimSetting s = current().get(namespace);
    return s == null ? Namespace.DEFAULT_WEIGHT : s.weight();
  }

  /** The namespace's running cap ({@code maxRunning}), or null for none, as last read. */
  public Integer maxRunning(String namespace) {
    ClaimSetting s = current().get(namespace);
    return s == null ? null : s.maxRunning();
  }

  /** The longest an attempt of the namespace may run ({@code maxTimeout}), or null for no cap. */
  public Duration maxTimeout(String namespace) {
    ClaimSetting s = current().get(namespace);
    return s == null ? null : s.maxTimeout();
  }

  /**
   * Has the next question read the rows again, at most once a second: for a worker that learnt
   * something changed (a claim refused for a cap it did not know of).
   */
  public void readSoon() {
    Instant soon = clock.instant().plusSeconds(1);
    if (nextRead.isAfter(soon)) {
      nextRead = lastRead.plusSeconds(1);
    }
  }

  private Map<String, ClaimSetting> current() {
    if (!clock.instant().isBefore(nextRead)) {
      runOnce();
    }
    return settings;
  }

  /** Reads the namespaces' rows now; on a failure keeps the last ones. */
  public synchronized void runOnce() {
    Instant now = clock.instant();
    lastRead = now;
    nextRead = now.plus(refresh);
    try {
      Map<String, ClaimSetting> read = Map.copyOf(store.claimSettings());
      if (!inactive(read).equals(inactive(settings))) {
        log.info("inactive namespaces now {}", inactive(read));
      }
      settings = read;
    } catch (RuntimeException e) {
      log.warn(
          "could not read the namespaces; keeping inactive {}: {}",
          inactive(settings),
          e.toString());
    }
  }

  private static Set<String> inactive(Map<String, ClaimSetting> settings) {
    Set<String> names = new TreeSet<>();
    settings.forEach(
        (name, s) -> {
          if (!s.active()) {
            names.add(name);
          }
        });
    return names;
  }
}
