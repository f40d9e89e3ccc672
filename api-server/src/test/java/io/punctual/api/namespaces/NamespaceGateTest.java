package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.namespace.Quota;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NamespaceGateTest {
  @Test
  void thePolicyWindowIsTheTimeAnEmptyBucketTakesToFill() {
    assertThat(NamespaceGate.policy(new Quota(10, 10, null, null)))
        .isEqualTo("\"submits\";q=10;w=1");
    assertThat(NamespaceGate.policy(new Quota(10, 25, null, null)))
        .isEqualTo("\"submits\";q=25;w=3");
    assertThat(NamespaceGate.policy(new Quota(100, 5, null, null)))
        .isEqualTo("\"submits\";q=5;w=1");
  }

  @Test
  void secondsRoundUp() {
    assertThat(NamespaceGate.seconds(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(NamespaceGate.seconds(Duration.ofSeconds(2))).isEqualTo(2);
    assertThat(NamespaceGate.seconds(Duration.ofMillis(2001))).isEqualTo(3);
    assertThat(NamespaceGate.seconds(Duration.ZERO)).isZero();
  }
}
