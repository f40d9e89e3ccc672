package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PriorityTest {
  @Test
  void ranksAreTheStoredNumbersHighestFirst() {
    assertThat(Priority.CRITICAL.rank()).isZero();
    assertThat(Priority.HIGH.rank()).isEqualTo(1);
    assertThat(Priority.NORMAL.rank()).isEqualTo(2);
    assertThat(Priority.LOW.rank()).isEqualTo(3);
    for (Priority p : Priority.values()) {
      assertThat(Priority.ofRank(p.rank())).isSameAs(p);
    }
  }

  @Test
  void aRankNoPriorityHasIsRefused() {
    assertThatThrownBy(() -> Priority.ofRank(4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Priority.ofRank(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
