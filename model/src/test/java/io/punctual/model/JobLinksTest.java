package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JobLinksTest {
  private final Upstream dependency = Upstream.stored(UUID.randomUUID(), RunCondition.ALWAYS);
  private final Upstream parent =
      Upstream.stored(UUID.randomUUID(), RunCondition.ON_SUCCESS).asParent();

  @Test
  void theParentIsTheEdgeMarkedParentWhereverItStands() {
    JobLinks links = JobLinks.NONE.withUpstream(List.of(dependency, parent));

    assertThat(links.parent()).isEqualTo(parent);
    assertThat(links.waits()).isTrue();
  }

  @Test
  void withoutAParentEdgeThereIsNoParent() {
    assertThat(JobLinks.NONE.withUpstream(List.of(dependency)).parent()).isNull();
    assertThat(JobLinks.NONE.parent()).isNull();
    assertThat(JobLinks.NONE.waits()).isFalse();
  }

  @Test
  void aJobHasAtMostOneParent() {
    Upstream another = Upstream.inBatch(0, RunCondition.ON_FAILURE).asParent();

    assertThatThrownBy(() -> JobLinks.NONE.withUpstream(List.of(parent, dependency, another)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most one parent");
  }
}
