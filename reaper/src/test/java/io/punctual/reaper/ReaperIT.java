package io.punctual.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReaperIT {
  private final ReaperFixture f = new ReaperFixture();

  @AfterEach
  void close() {
    f.close();
  }

  private long promoterLeases() {
    return f.stores.redis().sync().exists(f.stores.keys().promoterLease());
  }

  @Test
  void aSinglePassReleasesThePromoterLeaseWhenClosed() {
    // What `reaper --once` does: one pass, never started.
    try (Reaper reaper = new Reaper(f.stores, f.settings, new MetricRegistry(), "reaper-once")) {
      reaper.runOnce();
      assertThat(promoterLeases()).as("the pass promoted under the lease").isEqualTo(1);
    }

    assertThat(promoterLeases()).as("released: another promoter takes over at once").isZero();
  }
}
