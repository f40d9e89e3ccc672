package io.punctual.outbound.signing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Callback signatures as the Standard Webhooks specification (standardwebhooks.com) defines them:
 * {@code webhook-id}, {@code webhook-timestamp} (unix seconds) and {@code webhook-signature}, which
 * holds {@code v1,<base64 of HMAC-SHA256("<id>.<timestamp>.<body>")>} for each active secret,
 * space-separated. The key is the base64-decoded part of the {@code whsec_} secret.
 *
 * <p>Written by hand rather than taken from the reference library: it is twenty lines of the JDK's
 * HMAC, and the worker needs no further dependency (or its HTTP and JSON stacks) for it. {@link
 * #verify} is what a receiver runs; the tests check both against the specification's test vector.
 */
public final class WebhookSignature {
  /** The message's id: the job's id, the same for every attempt (receivers deduplicate by it). */
  public static final String ID = "webhook-id";

  /** When the message was signed, in unix seconds. */
  public static final String TIMESTAMP = "webhook-timestamp";

  /** {@code v1,<base64>} per active secret, space-separated. */
  public static final String SIGNATURE = "webhook-signature";

  /** How far a timestamp may be from the receiver's clock, either way (the specification's). */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  private static final String VERSION = "v1,";

  private WebhookSignature() {}

  /**
   * {@code v1,<base64>}: {@code secret}'s signature of {@code body} sent as {@code id} at {@code
   * t}.
   */
  public static String sign(SigningSecret secret, String id, long unixSeconds, byte[] body) {
    return VERSION + Base64.getEncoder().encodeToString(mac(secret, id, unixSeconds, body));
  }

  /** The {@code webhook-signature} value: every secret's signature, space-separated. */
  public static String header(
      List<SigningSecret> secrets, String id, long unixSeconds, byte[] body) {
    StringBuilder out = new StringBuilder();
    for (SigningSecret secret : secrets) {
      if (!out.isEmpty()) {
        out.append(' ');
      }
      out.append(sign(secret, id, unixSeconds, body));
    }
    return out.toString();
  }

  /**
   * Whether a request carries a valid signature of {@code body} by {@code secret}: one of the
   * {@code v1} signatures in {@code signatureHeader} matches (compared in constant time; others are
   * ignored), and {@code timestampHeader} is within {@code tolerance} of {@code now}, either way
   * (older is a replay, newer a clock too far off). {@code body} must be the bytes as received,
   * before any parsing. To accept several secrets (while rotating), call it once per secret.
   *
   * @param secret the receiver's {@code whsec_...} secret
   * @param idHeader the {@code webhook-id} header
   * @param timestampHeader the {@code webhook-timestamp} header
   * @param signatureHeader the {@code webhook-signature} header
   */
  public static boolean verify(
      String secret,
      String idHeader,
      String timestampHeader,
      String signatureHeader,
      byte[] body,
      Instant now,
      Duration tolerance) {
    Optional<SigningSecret> key = SigningSecret.parse(secret);
    if (key.isEmpty()
        || idHeader == null
        || timestampHeader == null
        || signatureHeader == null
        || body == null
        || !timestampHeader.matches("[0-9]{1,18}")) {
      return false;
    }
    long t = Long.parseLong(timestampHeader);
    if (Math.abs(now.getEpochSecond() - t) > tolerance.toSeconds()) {
      return false;
    }
    byte[] expected = mac(key.get(), idHeader, t, body);
    boolean match = false;
    for (String candidate : signatureHeader.split(" ", -1)) {
      if (!candidate.startsWith(VERSION)) {
        continue;
      }
      byte[] given;
      try {
        given = Base64.getDecoder().decode(candidate.substring(VERSION.length()));
      } catch (IllegalArgumentException e) {
        continue;
      }
      match |= MessageDigest.isEqual(expected, given);
    }
    return match;
  }

  /** {@link #verify(String, String, String, String, byte[], Instant, Duration)} of a UTF-8 body. */
  public static boolean verify(
      String secret,
      String idHeader,
      String timestampHeader,
      String signatureHeader,
      String body,
      Instant now,
      Duration tolerance) {
    return verify(
        secret,
        idHeader,
        timestampHeader,
        signatureHeader,
        body == null ? null : body.getBytes(StandardCharsets.UTF_8),
        now,
        tolerance);
  }

  private static byte[] mac(SigningSecret secret, String id, long unixSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      mac.update((id + "." + unixSeconds + ".").getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
