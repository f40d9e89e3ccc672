package io.punctual.store.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatsReaderTest {
  @Test
  void aHistogramReadAsTextIsTheStoredArray() {
    int[] stored = {0, 3, 1, 0, 12345, 0, 7};
    StatsHistogram fromArray = new StatsHistogram();
    fromArray.addAll(stored);
    StatsHistogram fromText = new StatsHistogram();
    StatsReader.addText(fromText, "{0,3,1,0,12345,0,7}");

    assertThat(fromText.toStored()).containsExactly(stored);
    assertThat(fromText.total()).isEqualTo(fromArray.total()).isEqualTo(12356);
  }

  @Test
  void anEmptyOrMissingHistogramAddsNothing() {
    StatsHistogram h = new StatsHistogram();
    StatsReader.addText(h, "{}");
    StatsReader.addText(h, null);
    assertThat(h.total()).isZero();
    StatsReader.addText(h, "{5}");
    assertThat(h.toStored()).containsExactly(5);
  }
}
