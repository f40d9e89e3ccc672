package io.punctual.store.stats;

import java.util.Arrays;

/**
 * A fixed log-scale histogram of milliseconds, mergeable by adding counts: bucket 0 holds values
 * below 1 ms, bucket {@code i >= 1} holds [2^((i-1)/4), 2^(i/4)) ms (four buckets per doubling, so
 * a percentile read from it is within 19 % of the true value), the last one everything above. The
 * rollup computes buckets in SQL with the same formula ({@code StatsRollup/rollup.sql}); stored
 * without trailing empty buckets.
 */
public final class StatsHistogram {
  /** The number of buckets: the last starts at 2^(126/4) ms, about 35 days. */
  public static final int BUCKETS = 128;

  private final long[] counts = new long[BUCKETS];
  private long total;

  /** The bucket of a value in milliseconds. */
  public static int bucket(double ms) {
    if (ms < 1) {
      return 0;
    }
    return (int) Math.min(BUCKETS - 1, 1 + Math.floor(4 * Math.log(ms) / Math.log(2)));
  }

  /** The value reported for a bucket: its geometric middle (0 for bucket 0). */
  static long representative(int bucket) {
    if (bucket == 0) {
      return 0;
    }
    return Math.round(Math.pow(2, (bucket - 0.5) / 4));
  }

  public void add(int bucket, long n) {
    counts[Math.max(0, Math.min(BUCKETS - 1, bucket))] += n;
    total += n;
  }

  /** Adds a stored histogram (counts by bucket, possibly shorter than {@link #BUCKETS}). */
  public void addAll(int[] stored) {
    if (stored == null) {
      return;
    }
    for (int i = 0; i < stored.length && i < BUCKETS; i++) {
      counts[i] += stored[i];
      total += stored[i];
    }
  }

  public long total() {
    return total;
  }

  /** The {@code p}-quantile (0 < p <= 1) as a bucket's representative value; null when empty. */
  public Long percentile(double p) {
    if (total == 0) {
      return null;
    }
    long rank = Math.max(1, (long) Math.ceil(p * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return representative(i);
      }
    }
    return representative(BUCKETS - 1);
  }

  /** The counts by bucket without trailing empty buckets, as stored. */
  public int[] toStored() {
    int last = BUCKETS - 1;
    while (last >= 0 && counts[last] == 0) {
      last--;
    }
    int[] out = new int[last + 1];
    for (int i = 0; i <= last; i++) {
      out[i] = (int) Math.min(Integer.MAX_VALUE, counts[i]);
    }
    return out;
  }

  @Override
  public String toString() {
    return Arrays.toString(toStored());
  }
}
