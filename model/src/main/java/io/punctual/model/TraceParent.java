package io.punctual.model;

import java.util.regex.Pattern;

/**
 * A W3C Trace Context {@code traceparent} value ({@code 00-<32 hex trace id>-<16 hex parent id>-<2
 * hex flags>}), as a job carries it from the request that submitted it to the attempts that run it.
 * Only version 00 is kept whole; an all-zero trace or parent id is invalid, and an invalid value is
 * dropped rather than refused (the recommendation says to ignore it).
 */
public final class TraceParent {
  private static final Pattern FORMAT =
      Pattern.compile("00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}");

  private TraceParent() {}

  /** {@code value} if it is a valid version-00 traceparent (lower-cased, trimmed), else null. */
  public static String validOrNull(String value) {
    if (value == null || value.length() > 64) {
      return null;
    }
    String v = value.trim().toLowerCase(java.util.Locale.ROOT);
    return FORMAT.matcher(v).matches() ? v : null;
  }
}
