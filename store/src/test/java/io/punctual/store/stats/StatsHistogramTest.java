package io.punctual.store.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatsHistogramTest {
  @Test
  void bucketsAreFourPerDoublingAndPercentilesStayWithinOneBucket() {
    assertThat(StatsHistogram.bucket(0)).isZero();
    assertThat(StatsHistogram.bucket(0.5)).isZero();
    assertThat(StatsHistogram.bucket(1)).isEqualTo(1);
    assertThat(StatsHistogram.bucket(16)).isEqualTo(17);
    assertThat(StatsHistogram.bucket(1e15)).isEqualTo(StatsHistogram.BUCKETS - 1);
    for (long ms : new long[] {3, 10, 99, 1_000, 65_000, 3_600_000}) {
      StatsHistogram h = new StatsHistogram();
      h.add(StatsHistogram.bucket(ms), 1);
      assertThat((double) h.percentile(0.5)).as("ms=" + ms).isBetween(ms / 1.19, ms * 1.19);
    }
  }

  @Test
  void mergesStoredHistogramsByAddingAndReadsRanks() {
    StatsHistogram a = new StatsHistogram();
    for (int i = 0; i < 90; i++) {
      a.add(StatsHistogram.bucket(10), 1);
    }
    StatsHistogram b = new StatsHistogram();
    b.add(StatsHistogram.bucket(1_000), 10);
    StatsHistogram merged = new StatsHistogram();
    merged.addAll(a.toStored());
    merged.addAll(b.toStored());

    assertThat(merged.total()).isEqualTo(100);
    assertThat(merged.percentile(0.9)).isBetween(9L, 11L);
    assertThat(merged.percentile(0.95)).isBetween(840L, 1190L);
    assertThat(a.toStored()).hasSize(StatsHistogram.bucket(10) + 1);
    assertThat(new StatsHistogram().percentile(0.5)).isNull();
    assertThat(new StatsHistogram().toStored()).isEmpty();
  }
}
