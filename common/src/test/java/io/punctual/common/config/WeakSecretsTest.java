package io.punctual.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class WeakSecretsTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "dev-only-bootstrap-key-change-me-0123456789|contains the word \"change-me\"",
        "CHANGE-ME-to-32-or-more-random-characters|contains the word \"change-me\"",
        "please_Change_Me_0123456789abcdefghijklmn|contains the word \"change_me\"",
        "xChangeMe0123456789abcdefghijklmnopqrstuv|contains the word \"changeme\"",
        "example-bootstrap-key-of-at-least-32-characters|contains the word \"example\"",
        "my-ExAmPlE-0123456789abcdefghijklmnopqrst|contains the word \"example\"",
        "TopSecret0123456789abcdefghijklmnopqrstu|contains the word \"secret\"",
        "hunter2-PASSWORD-0123456789abcdefghijklm|contains the word \"password\"",
        "placeholder-0123456789abcdefghijklmnopqr|contains the word \"placeholder\"",
        "aaaaaa0123456789bcdefghijklmnopqrstuvwxy|repeats one character 6 or more times in a row",
        "0123456789abcdef000000ghijklmnopqrstuvwx|repeats one character 6 or more times in a row",
        "0123456789abcdefghijklmnopqrstuvwxyz------|repeats one character 6 or more times in a row"
      })
  void typedValuesAreRefusedSayingWhyWithoutQuotingThem(String secret, String why) {
    assertThat(WeakSecrets.weakness(secret)).contains(why);

    SettingsErrors errors = new SettingsErrors();
    WeakSecrets.check(secret, "auth.bootstrapKey", errors);
    assertThat(errors.messages()).hasSize(1);
    assertThat(errors.messages().get(0))
        .startsWith("auth.bootstrapKey looks like an example or a placeholder (it " + why + ")")
        .doesNotContain(secret);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "test-admin-key-0123456789abcdefghijklmnopqrstuvwxyz",
        "q0Zk3vX9+Jf2mH8sLr4pWt7yBc1nDe6gAu5iOo/K",
        "aaaaa-bbbbb-ccccc-0123456789-ddddd-eeeee",
        "pct_Xq3vA9skBv7Lm2Qw8Zr5Ty1Uo4Ip6As3Df9Gh"
      })
  void generatedLookingValuesPass(String secret) {
    assertThat(WeakSecrets.weakness(secret)).isEmpty();
    SettingsErrors errors = new SettingsErrors();
    WeakSecrets.check(secret, "auth.bootstrapKey", errors);
    assertThat(errors.isEmpty()).isTrue();
  }
}
