package io.punctual.api.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Making and hashing key secrets. A generated secret is {@code pct_} and 32 random bytes in
 * base64url (256 bits): so much entropy that one SHA-256 is the right hash (a slow password hash
 * guards guessable secrets, which these are not, and would cost every request). What a bootstrap
 * secret given by the operator must be is {@code AuthSettings}' to check.
 */
public final class KeySecrets {
  /** Characters of a secret kept in clear as its public prefix. */
  public static final int PREFIX_LENGTH = 12;

  private static final String GENERATED_PREFIX = "pct_";
  private static final SecureRandom RANDOM = new SecureRandom();

  private KeySecrets() {}

  /** A new random secret. */
  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return GENERATED_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The public part of {@code secret}: its first {@link #PREFIX_LENGTH} characters. */
  public static String prefix(String secret) {
    return secret.substring(0, Math.min(PREFIX_LENGTH, secret.length()));
  }

  public static byte[] sha256(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }

  /** Whether two hashes are equal, in time that does not depend on where they differ. */
  public static boolean sameHash(byte[] a, byte[] b) {
    return MessageDigest.isEqual(a, b);
  }
}
