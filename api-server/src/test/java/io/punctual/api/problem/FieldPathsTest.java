package io.punctual.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.requests.FieldError;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldPathsTest {
  @Test
  void ordinaryPathsAreShownAsTheyAre() {
    assertThat(FieldPaths.printable("jobs[3].callback.headers.X-Trace"))
        .isEqualTo("jobs[3].callback.headers.X-Trace");
    assertThat(FieldPaths.printable("payload.\uD83D\uDE00")).isEqualTo("payload.\uD83D\uDE00");
    assertThat(FieldPaths.printable((String) null)).isNull();
  }

  @Test
  void controlCharactersAndLoneSurrogatesBecomeReplacementCharacters() {
    assertThat(FieldPaths.printable("a\u0000b\u0007c\uD800d")).isEqualTo("a\uFFFDb\uFFFDc\uFFFDd");
  }

  @Test
  void aLongPathIsCutAt200CharactersAndMarked() {
    String cut = FieldPaths.printable("x".repeat(10_000));

    assertThat(cut).hasSize(201).startsWith("x".repeat(200)).endsWith("\u2026");
    assertThat(FieldPaths.printable("y".repeat(200))).isEqualTo("y".repeat(200));
  }

  @Test
  void aProblemNeverCarriesTheRawPath() {
    Problem problem =
        Problems.invalid(List.of(new FieldError("z".repeat(5_000), "is not a known field")))
            .problem();

    assertThat(problem.field()).hasSize(201);
    assertThat(problem.errors().get(0).field()).hasSize(201);
    assertThat(problem.detail()).hasSizeLessThan(300);
  }
}
