package io.punctual.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.config.SettingsErrors;
import org.junit.jupiter.api.Test;

class AuthSettingsTest {
  private static java.util.List<String> errors(String bootstrapKey) {
    AuthSettings auth = new AuthSettings();
    auth.bootstrapKey = bootstrapKey;
    SettingsErrors errors = new SettingsErrors();
    auth.validate(errors);
    return errors.messages();
  }

  @Test
  void aBootstrapKeyCopiedFromAnExampleIsRefusedNamingTheSettingNotTheKey() {
    String key = "dev-only-bootstrap-key-change-me-0123456789";

    assertThat(errors(key))
        .singleElement()
        .asString()
        .startsWith("auth.bootstrapKey (PUNCTUAL_BOOTSTRAP_KEY) looks like an example")
        .contains("\"change-me\"")
        .doesNotContain(key);
    assertThat(errors("Example-Key-Of-At-Least-32-Characters-Long")).hasSize(1);
    assertThat(errors("0123456789abcdefghijklmnopqrstuvwxyzzzzzzz"))
        .singleElement()
        .asString()
        .contains("repeats one character 6 or more times");
  }

  @Test
  void aRandomBootstrapKeyOrNoneIsTaken() {
    assertThat(errors("q0Zk3vX9+Jf2mH8sLr4pWt7yBc1nDe6gAu5iOo/K")).isEmpty();
    assertThat(errors(null)).isEmpty();
    assertThat(errors("")).isEmpty();
  }

  @Test
  void aShortWeakKeyIsToldBothWhatIsWrong() {
    assertThat(errors("secret"))
        .hasSize(2)
        .anySatisfy(m -> assertThat(m).contains("looks like an example"))
        .anySatisfy(m -> assertThat(m).contains("must be at least 32 characters"));
  }
}
