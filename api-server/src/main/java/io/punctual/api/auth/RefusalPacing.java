package io.punctual.api.auth;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.github.bucket4j.Bucket;
import io.punctual.queue.rate.KeyedBuckets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

/**
 * Paces the 401s of one source address: a token bucket per source of {@code perSecond} refused
 * authentications a second (bursts of twice that, Bucket4j); a refusal past it is held until its
 * token comes, at most {@link #MAX_HOLD}, before its 401 is written. A flood of bad keys from one
 * source is thus answered at that rate however many connections it opens, and costs the API that
 * many refusals a second instead of all its CPU; the requests of valid keys are never held. Holding
 * parks the request's thread (a virtual thread with {@code server.enableVirtualThreads}, as the
 * bundled configuration has). Sources are the peers' addresses; past {@value #MAX_SOURCES} of them
 * the map starts over (a flood from that many addresses costs its buckets, not memory).
 */
public final class RefusalPacing {
  /** The longest a refusal is held. */
  static final Duration MAX_HOLD = Duration.ofSeconds(2);

  static final int MAX_SOURCES = 10_000;

  /** Null when pacing is off. */
  private final KeyedBuckets<String> sources;

  private final Meter held;

  /** {@code perSecond}: 0 holds nothing. */
  public RefusalPacing(int perSecond, Clock clock, MetricRegistry metrics) {
    this.sources = perSecond == 0 ? null : new KeyedBuckets<>(perSecond, clock, MAX_SOURCES);
    this.held = metrics.meter("punctual.auth.refusalsHeld");
  }

  /** Pacing that holds nothing (authentication off, or tests and benchmarks of other things). */
  public static RefusalPacing none() {
    // never read: a pacing of 0 holds nothing
    return new RefusalPacing(0, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), new MetricRegistry());
  }

  /**
   * Waits, if {@code source} has used its refusals of the moment, until its next one (at most
   * {@link #MAX_HOLD}); returns at once otherwise. Call it before a 401 is written.
   */
  public void hold(String source) {
    if (sources == null) {
      return;
    }
    Bucket bucket = sources.of(source == null ? "(unknown)" : source);
    if (bucket.tryConsume(1)) {
      return;
    }
    held.mark();
    try {
      if (!bucket.asBlocking().tryConsume(1, MAX_HOLD)) {
        // more are waiting than MAX_HOLD's tokens: this one waits the longest, without a token
        TimeUnit.NANOSECONDS.sleep(MAX_HOLD.toNanos());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
