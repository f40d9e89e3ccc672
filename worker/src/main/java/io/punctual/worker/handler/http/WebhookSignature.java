package io.punctual.worker.handler.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code Punctual-Signature} header of callback requests: {@code t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>">}. Receivers recompute the HMAC with the shared secret, compare in
 * constant time, and reject timestamps too far from their clock (replays).
 */
public final class WebhookSignature {
  public static final String HEADER = "Punctual-Signature";

  private WebhookSignature() {}

  /** The header value for {@code body} sent at {@code unixSeconds}. */
  public static String sign(String secret, long unixSeconds, String body) {
    return "t=" + unixSeconds + ",v1=" + hmacHex(secret, unixSeconds + "." + body);
  }

  /** Whether {@code header} signs {@code body} with {@code secret} within {@code tolerance}. */
  public static boolean verify(
      String secret, String header, String body, Instant now, Duration tolerance) {
    if (header == null) {
      return false;
    }
    Long t = null;
    String v1 = null;
    for (String part : header.split(",", -1)) {
      String p = part.trim();
      if (p.startsWith("t=")) {
        try {
          t = Long.parseLong(p.substring(2));
        } catch (NumberFormatException e) {
          return false;
        }
      } else if (p.startsWith("v1=")) {
        v1 = p.substring(3);
      }
    }
    if (t == null || v1 == null) {
      return false;
    }
    if (Math.abs(now.getEpochSecond() - t) > tolerance.toSeconds()) {
      return false;
    }
    byte[] expected = hmacHex(secret, t + "." + body).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, v1.getBytes(StandardCharsets.US_ASCII));
  }

  static String hmacHex(String secret, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
