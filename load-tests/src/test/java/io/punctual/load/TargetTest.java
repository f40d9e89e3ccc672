package io.punctual.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulations find the key of {@code ./punctual dev} without being told (docs/performance.md).
 */
class TargetTest {

  @Test
  void readsTheDevAdminKeyFromTheRepositoryAboveTheWorkingDirectory(@TempDir Path repo)
      throws IOException {
    Files.createDirectories(repo.resolve(".punctual-data"));
    Files.writeString(repo.resolve(".punctual-data/admin.key"), "pct_from_dev\n");
    Path loadTests = Files.createDirectories(repo.resolve("load-tests"));

    assertThat(Target.key(null, null, loadTests)).isEqualTo("pct_from_dev");
    assertThat(Target.key(null, " ", repo)).isEqualTo("pct_from_dev");
  }

  @Test
  void aKeyGivenAsAPropertyOrInTheEnvironmentComesFirst(@TempDir Path repo) throws IOException {
    Files.createDirectories(repo.resolve(".punctual-data"));
    Files.writeString(repo.resolve(".punctual-data/admin.key"), "pct_from_dev");

    assertThat(Target.key("pct_property", "pct_env", repo)).isEqualTo("pct_property");
    assertThat(Target.key(null, "pct_env", repo)).isEqualTo("pct_env");
  }

  @Test
  void noKeyAnywhereIsNone(@TempDir Path empty) {
    assertThat(Target.key(null, null, empty)).isNull();
  }
}
