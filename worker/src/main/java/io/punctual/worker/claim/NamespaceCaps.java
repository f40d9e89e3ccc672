package io.punctual.worker.claim;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * A worker's side of the namespaces' running caps ({@code maxRunning}, V27; PostgreSQL decides in
 * the claim statement): which claims must take a namespace's slots lock, how many jobs a claim of a
 * capped namespace asks Redis for (its room, read before each claim: one short query, so that a
 * claim does not take jobs only to put them back), and which namespaces to leave alone for a moment
 * because they were full: {@link #FIRST_RECHECK} after one was found full, then twice as long each
 * time it still is, up to {@link #LAST_RECHECK}, or at once when one of its attempts ends on this
 * worker. A slot freed by another worker is taken within that long.
 *
 * <p>Thread-safe: the claim loop asks; the threads confirming claims report full namespaces.
 */
public final class NamespaceCaps {
  /** How soon a namespace found full is looked at again. */
  static final Duration FIRST_RECHECK = Duration.ofMillis(250);

  /** The longest a namespace that stays full is left alone between looks. */
  static final Duration LAST_RECHECK = Duration.ofSeconds(2);

  private final Function<String, Integer> maxRunning;
  private final ToIntFunction<String> room;
  private final Runnable readSoon;
  private final Runnable wake;
  private final Clock clock;

  private record Full(Instant until, Duration pause) {}

  private final Map<String, Full> full = new ConcurrentHashMap<>();

  /**
   * @param maxRunning a namespace's cap as last read (null: none)
   * @param room how many more of a namespace's attempts may start now (read from PostgreSQL)
   * @param readSoon has the caps read again soon (a claim was refused for a cap not known here)
   * @param wake wakes the claim loop (a namespace left alone may be claimed from again)
   */
  public NamespaceCaps(
      Function<String, Integer> maxRunning,
      ToIntFunction<String> room,
      Runnable readSoon,
      Runnable wake,
      Clock clock) {
    this.maxRunning = maxRunning;
    this.room = room;
    this.readSoon = readSoon;
    this.wake = wake;
    this.clock = clock;
  }

  /** Caps that never apply: every namespace uncapped. */
  public static NamespaceCaps none(Clock clock) {
    return new NamespaceCaps(ns -> null, ns -> Integer.MAX_VALUE, () -> {}, () -> {}, clock);
  }

  /**
   * The namespace whose slots lock a claim of {@code namespace} takes: itself when it has a cap,
   * else null.
   */
  String lockFor(String namespace) {
    return maxRunning.apply(namespace) == null ? null : namespace;
  }

  /**
   * How many of {@code namespace}'s jobs a claim may ask for now: 0 while it is left alone, else,
   * for a namespace with a cap, its room read now (0 when full: then it is left alone for a
   * moment), else {@code wanted}.
   */
  int room(String namespace, int wanted) {
    Integer cap = maxRunning.apply(namespace);
    Full f = full.get(namespace);
    if (f != null && clock.instant().isBefore(f.until())) {
      return 0;
    }
    if (cap == null) {
      full.remove(namespace);
      return wanted;
    }
    int free = room.applyAsInt(namespace);
    if (free <= 0) {
      Duration pause = f == null ? FIRST_RECHECK : min(f.pause().multipliedBy(2), LAST_RECHECK);
      full.put(namespace, new Full(clock.instant().plus(pause), pause));
      return 0;
    }
    full.remove(namespace);
    return Math.min(free, wanted);
  }

  /**
   * A claim of {@code namespace} had jobs refused because the namespace was full (or, without its
   * lock, capped): it is left alone for a moment, and the caps are read again if this worker did
   * not know it had one.
   */
  void refusedFull(String namespace) {
    if (maxRunning.apply(namespace) == null) {
      readSoon.run();
    }
    full.compute(
        namespace,
        (ns, f) -> {
          Duration pause = f == null ? FIRST_RECHECK : f.pause();
          return new Full(clock.instant().plus(pause), pause);
        });
  }

  /**
   * Attempts of {@code namespaces} ended on this worker (their running slots are given back): those
   * left alone are looked at again at once.
   */
  public void freed(Set<String> namespaces) {
    boolean any = false;
    for (String ns : namespaces) {
      any |= full.remove(ns) != null;
    }
    if (any) {
      wake.run();
    }
  }

  /** When the earliest namespace left alone is looked at again, if any. */
  Optional<Instant> nextLook() {
    return full.values().stream().map(Full::until).min(Instant::compareTo);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
