package io.punctual.queue.lease;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedlockValidityTest {
  @Test
  void theValidityIsTheTtlLessTheTimeTakenAndTheDriftAllowance() {
    // 10 s: 1 % drift (100 ms) + 2 ms.
    assertThat(Redlock.validityMs(10_000, 0)).isEqualTo(9_898);
    assertThat(Redlock.validityMs(10_000, 9_897)).isEqualTo(1);
    assertThat(Redlock.validityMs(10_000, 9_898)).isZero();
    // A short lease: the fixed 2 ms dominate.
    assertThat(Redlock.validityMs(100, 97)).isEqualTo(0);
    assertThat(Redlock.validityMs(100, 96)).isEqualTo(1);
  }
}
