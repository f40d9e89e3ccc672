package io.punctual.store.secret;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.config.InvalidSettingsException;
import io.punctual.store.config.SecretsSettings;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SecretSealerTest {
  private static final String KEY =
      Base64.getEncoder()
          .encodeToString("a deployment key of 32 bytes ok!".getBytes(StandardCharsets.US_ASCII));

  private static SecretsSettings settings(String key, boolean plain) {
    SecretsSettings s = new SecretsSettings();
    s.encryptionKey = key;
    s.storePlain = plain;
    return s;
  }

  @Test
  void aKeyOrPlainStorageMustBeChosen_andTheErrorSaysHow() {
    assertThatThrownBy(() -> SecretSealer.of(settings(null, false)))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("secrets.encryptionKey (PUNCTUAL_SECRETS_KEY) must be set")
        .hasMessageContaining("openssl rand -base64 32")
        .hasMessageContaining("secrets.storePlain");
    assertThatThrownBy(() -> SecretSealer.of(settings(KEY, true)))
        .hasMessageContaining("give one, not both");
    assertThatThrownBy(() -> SecretSealer.of(settings("not base64!", false)))
        .hasMessageContaining("is not base64")
        .hasMessageNotContaining("not base64!");
    assertThatThrownBy(
            () ->
                SecretSealer.of(settings(Base64.getEncoder().encodeToString(new byte[16]), false)))
        .hasMessageContaining("must be the base64 of 32 bytes");
    settings(null, false).validate(); // a role that keeps no secrets starts without either
  }

  @Test
  void sealedSecretsOpenForTheirOwnerOnly() {
    SecretSealer sealer = SecretSealer.of(settings(KEY, false));
    byte[] secret = "thirty-two bytes of a signing key".getBytes(StandardCharsets.US_ASCII);

    byte[] sealed = sealer.seal(secret, "namespace-signing-secret/a/1");

    assertThat(sealer.open(sealed, sealer.keyId(), "namespace-signing-secret/a/1"))
        .isEqualTo(secret);
    assertThat(sealer.seal(secret, "namespace-signing-secret/a/1"))
        .as("a fresh nonce each time")
        .isNotEqualTo(sealed);
    assertThatThrownBy(() -> sealer.open(sealed, sealer.keyId(), "namespace-signing-secret/b/1"))
        .isInstanceOf(IllegalStateException.class);
    sealed[sealed.length - 1] ^= 1;
    assertThatThrownBy(() -> sealer.open(sealed, sealer.keyId(), "namespace-signing-secret/a/1"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(SecretSealer.of(settings(null, true)).keyId()).isEqualTo(SecretSealer.PLAIN);
  }
}
