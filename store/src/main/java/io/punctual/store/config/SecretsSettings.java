package io.punctual.store.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import java.util.Base64;

/**
 * How secrets Punctual must be able to read back (the namespaces' signing secrets) are kept in
 * PostgreSQL ({@code secrets}): sealed with {@link #encryptionKey}, or, where the operator chose
 * so, as they are ({@link #storePlain}). One of the two must be given.
 */
public class SecretsSettings implements ValidatedSettings {
  /** Bytes of an encryption key (AES-256). */
  public static final int KEY_BYTES = 32;

  /**
   * The base64 of {@value #KEY_BYTES} random bytes ({@code openssl rand -base64 32}; env {@code
   * PUNCTUAL_SECRETS_KEY}), the same for every process of a deployment. Write-only: never
   * serialized back out.
   */
  @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
  public String encryptionKey;

  /**
   * Keep the secrets as they are, unencrypted, in PostgreSQL (the database's own protection is then
   * theirs). Only without {@link #encryptionKey}.
   */
  @JsonProperty public boolean storePlain = false;

  /** The key's bytes; null when {@link #encryptionKey} is not set. */
  @JsonIgnore
  public byte[] keyBytes() {
    if (!keyed()) {
      return null;
    }
    return Base64.getDecoder().decode(encryptionKey.strip());
  }

  /** Whether an encryption key is given. */
  @JsonIgnore
  public boolean keyed() {
    return encryptionKey != null && !encryptionKey.isBlank();
  }

  /**
   * Adds an error when neither an encryption key nor plain storage is given: what a role that keeps
   * secrets refuses to start without.
   */
  public void requireChoice(SettingsErrors errors) {
    errors.require(
        keyed() || storePlain,
        "secrets.encryptionKey (PUNCTUAL_SECRETS_KEY) must be set: the base64 of "
            + KEY_BYTES
            + " random bytes (openssl rand -base64 32), the same for every process; or set"
            + " secrets.storePlain: true (PUNCTUAL_SECRETS_STORE_PLAIN) to keep the namespaces'"
            + " signing secrets unencrypted in PostgreSQL");
  }

  @Override
  public void validate(SettingsErrors errors) {
    boolean keyed = keyed();
    if (keyed && storePlain) {
      errors.add("secrets.encryptionKey and secrets.storePlain: give one, not both");
      return;
    }
    if (keyed) {
      byte[] key;
      try {
        key = keyBytes();
      } catch (IllegalArgumentException e) {
        errors.add("secrets.encryptionKey (PUNCTUAL_SECRETS_KEY) is not base64");
        return;
      }
      errors.require(
          key.length == KEY_BYTES,
          "secrets.encryptionKey (PUNCTUAL_SECRETS_KEY) must be the base64 of "
              + KEY_BYTES
              + " bytes");
    }
  }
}
