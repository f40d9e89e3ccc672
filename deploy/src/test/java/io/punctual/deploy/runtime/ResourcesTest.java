package io.punctual.deploy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourcesTest {
  @Test
  void closesInReverseOrderOnceEvenIfOneFails() {
    List<String> closed = new ArrayList<>();
    Resources resources = new Resources();
    resources.add("postgres", () -> closed.add("postgres"));
    resources.add(
        "stores",
        () -> {
          closed.add("stores");
          throw new IllegalStateException("boom");
        });
    resources.add("worker", () -> closed.add("worker"));

    resources.closeAll();
    resources.closeAll();

    assertThat(closed).containsExactly("worker", "stores", "postgres");
  }
}
