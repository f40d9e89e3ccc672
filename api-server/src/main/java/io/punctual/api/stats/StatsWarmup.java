package io.punctual.api.stats;

import io.dropwizard.lifecycle.Managed;
import io.punctual.store.stats.StatsReader;
import io.punctual.store.stats.StatsReader.GroupBy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the statistics of every namespace by namespace over the last {@code api.statsWarmup} once
 * as the API starts, before its ports open, then the console overview's last day and hour: the
 * reader keeps the settled hours it read, so the console's overview (the last day and hour of every
 * namespace) and any every-namespace range within that window answer from them on their first call
 * instead of reading hundreds of thousands of rows (about 0.4 s for a day and 0.9 s for a week at
 * 10 million jobs on a fresh process), and the reading code is compiled by then. The start waits
 * for it at most {@link #WAIT}; past that it goes on in the background. A failure (the store
 * unreachable at start) is logged and changes nothing else: the first request then reads as it
 * would have.
 */
public final class StatsWarmup implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(StatsWarmup.class);

  /** The ranges of every namespace the console's overview reads (overview.js). */
  static final List<Duration> OVERVIEW = List.of(Duration.ofDays(1), Duration.ofHours(1));

  /** The longest the start waits for the warm-up. */
  static final Duration WAIT = Duration.ofSeconds(30);

  private final StatsReader reader;
  private final Clock clock;
  private final Duration range;

  /**
   * @param range how far back to read ({@code api.statsWarmup}); zero turns the warm-up off
   */
  public StatsWarmup(StatsReader reader, Clock clock, Duration range) {
    this.reader = reader;
    this.clock = clock;
    this.range = range;
  }

  @Override
  public void start() throws InterruptedException {
    if (range.isZero()) {
      return;
    }
    Thread thread = Thread.ofPlatform().daemon().name("stats-warmup").start(this::runOnce);
    if (!thread.join(WAIT)) {
      LOG.info("statistics warm-up still running after {}; the API starts meanwhile", WAIT);
    }
  }

  /**
   * Reads the range once; returns the groups read (-1 when it failed or is turned off). The groups
   * themselves are not kept here: the reader keeps the units it read.
   */
  public int runOnce() {
    if (range.isZero()) {
      return -1;
    }
    long t0 = System.nanoTime();
    Instant now = clock.instant();
    try {
      int groups = reader.groups(null, now.minus(range), now, GroupBy.NAMESPACE).size();
      // The overview's own two ranges: their edges are minutes that the range above read as
      // whole days and hours, and the blocks of ten minutes read there are kept as well.
      for (Duration overview : OVERVIEW) {
        if (overview.compareTo(range) <= 0) {
          reader.groups(null, now.minus(overview), now, GroupBy.NAMESPACE);
        }
      }
      LOG.info(
          "statistics warm-up: every namespace over the last {} read in {} ms ({} namespaces)",
          range,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
          groups);
      return groups;
    } catch (RuntimeException e) {
      LOG.warn(
          "statistics warm-up failed; the first statistics call reads the store: {}", e.toString());
      return -1;
    }
  }
}
