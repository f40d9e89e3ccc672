package io.punctual.bench;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** SQL text for the scale benchmark: resources, and literals written into explained statements. */
final class SqlText {
  private SqlText() {}

  /** A classpath resource's text (UTF-8). */
  static String resource(String name) throws Exception {
    try (InputStream in = SqlText.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A timestamptz literal. */
  static String timestamp(Instant t) {
    // ISO-8601 without the sign java.time puts before years past 9999, which PostgreSQL refuses.
    return literal(t.toString().replace("+", "")) + "::timestamptz";
  }

  /** A string literal, quotes doubled. */
  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
