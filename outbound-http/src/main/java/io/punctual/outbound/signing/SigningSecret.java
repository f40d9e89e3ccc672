package io.punctual.outbound.signing;

import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * A Standard Webhooks signing secret: {@code whsec_} and the base64 of the key, at least {@link
 * #MIN_BYTES} bytes of it (the spec asks for 24 to 64). The key is the decoded bytes, not the text.
 * Its {@link #toString()} never shows the key, so the secret cannot reach a log line by accident.
 */
public final class SigningSecret {
  /** What every secret starts with. */
  public static final String PREFIX = "whsec_";

  /** Fewest key bytes a secret may have (the Standard Webhooks minimum). */
  public static final int MIN_BYTES = 24;

  /** What a secret must look like, for messages (which never show the value given). */
  public static final String FORM =
      PREFIX + " followed by the base64 of at least " + MIN_BYTES + " random bytes";

  private final byte[] key;

  private SigningSecret(byte[] key) {
    this.key = key;
  }

  /** {@code text} as a secret, or empty when it is not {@code whsec_<base64 of >= 24 bytes>}. */
  public static Optional<SigningSecret> parse(String text) {
    if (text == null || !text.startsWith(PREFIX)) {
      return Optional.empty();
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    return key.length < MIN_BYTES ? Optional.empty() : Optional.of(new SigningSecret(key));
  }

  /**
   * {@code text} as a secret.
   *
   * @throws IllegalArgumentException (not showing {@code text}) when it is not one
   */
  public static SigningSecret of(String text) {
    return parse(text)
        .orElseThrow(() -> new IllegalArgumentException("a signing secret must be " + FORM));
  }

  /**
   * The secret whose key is {@code key} (at least {@link #MIN_BYTES} bytes; copied).
   *
   * @throws IllegalArgumentException when it is shorter
   */
  public static SigningSecret ofKey(byte[] key) {
    if (key.length < MIN_BYTES) {
      throw new IllegalArgumentException("a signing key has at least " + MIN_BYTES + " bytes");
    }
    return new SigningSecret(key.clone());
  }

  /** The secret as a receiver holds it: {@code whsec_} and the base64 of the key. */
  public String text() {
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /** A copy of the HMAC key. */
  public byte[] key() {
    return key.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SigningSecret other && Arrays.equals(key, other.key);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(key);
  }

  @Override
  public String toString() {
    return PREFIX + "(hidden)";
  }
}
