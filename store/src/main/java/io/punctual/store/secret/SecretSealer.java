package io.punctual.store.secret;

import io.punctual.common.config.SettingsErrors;
import io.punctual.store.config.SecretsSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals secrets before they are stored and opens them when read: AES-256-GCM under the deployment's
 * {@code secrets.encryptionKey} (a random 12-byte nonce before the ciphertext and its tag), with
 * associated data naming what the secret belongs to, so a sealed secret copied to another row does
 * not open. Or, where the operator chose {@code secrets.storePlain}, nothing: the bytes as they
 * are. The JDK's own AES-GCM; nothing is logged.
 */
public final class SecretSealer {
  /** The key id of secrets stored as they are. */
  public static final String PLAIN = "plain";

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  private final String keyId;

  private SecretSealer(byte[] key) {
    this.key = key == null ? null : new SecretKeySpec(key, "AES");
    this.keyId = key == null ? PLAIN : keyIdOf(key);
  }

  /**
   * The sealer {@code settings} describe.
   *
   * @throws io.punctual.common.config.InvalidSettingsException when they give neither a key nor
   *     plain storage, or a key that is not 32 bytes of base64
   */
  public static SecretSealer of(SecretsSettings settings) {
    SettingsErrors errors = new SettingsErrors();
    settings.validate(errors);
    settings.requireChoice(errors);
    errors.throwIfAny();
    return new SecretSealer(settings.keyBytes());
  }

  /** A sealer under {@code key} (32 bytes). */
  public static SecretSealer withKey(byte[] key) {
    if (key.length != SecretsSettings.KEY_BYTES) {
      throw new IllegalArgumentException(
          "an encryption key has " + SecretsSettings.KEY_BYTES + " bytes");
    }
    return new SecretSealer(key.clone());
  }

  /** A sealer that stores secrets as they are. */
  public static SecretSealer plain() {
    return new SecretSealer(null);
  }

  /** What rows sealed by this sealer carry as their {@code key_id}. */
  public String keyId() {
    return keyId;
  }

  /** {@code secret} sealed for {@code owner} (the associated data). */
  public byte[] seal(byte[] secret, String owner) {
    if (key == null) {
      return secret.clone();
    }
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher gcm = cipher(Cipher.ENCRYPT_MODE, nonce, owner);
      byte[] sealed = gcm.doFinal(secret);
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  /**
   * What {@link #seal} sealed for {@code owner} under {@code rowKeyId}.
   *
   * @throws IllegalStateException when the row was sealed under another key, or for another owner,
   *     or was changed
   */
  public byte[] open(byte[] sealed, String rowKeyId, String owner) {
    if (!keyId.equals(rowKeyId)) {
      throw new IllegalStateException(
          "a secret stored under key "
              + rowKeyId
              + " cannot be read with this deployment's secrets settings (key "
              + keyId
              + ")");
    }
    if (key == null) {
      return sealed.clone();
    }
    if (sealed.length <= NONCE_BYTES) {
      throw new IllegalStateException("a sealed secret is too short");
    }
    try {
      Cipher gcm = cipher(Cipher.DECRYPT_MODE, Arrays.copyOf(sealed, NONCE_BYTES), owner);
      return gcm.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("a sealed secret does not open (wrong owner or changed)");
    }
  }

  private Cipher cipher(int mode, byte[] nonce, String owner) throws GeneralSecurityException {
    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
    gcm.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
    gcm.updateAAD(owner.getBytes(StandardCharsets.UTF_8));
    return gcm;
  }

  private static String keyIdOf(byte[] key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key);
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
