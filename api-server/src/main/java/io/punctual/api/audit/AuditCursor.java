package io.punctual.api.audit;

import io.punctual.api.problem.Problems;
import io.punctual.store.AuditStore.Cursor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;

/**
 * The cursor of {@code GET /audit}: the time (epoch microseconds) and id of the last entry of the
 * previous page, base64url-encoded; opaque to clients. One this API did not return is a 400 naming
 * {@code cursor}.
 */
final class AuditCursor {
  private AuditCursor() {}

  static String encode(Cursor cursor) {
    if (cursor == null) {
      return null;
    }
    String text = ChronoUnit.MICROS.between(Instant.EPOCH, cursor.at()) + "." + cursor.id();
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  static Cursor decode(String cursor) {
    if (cursor == null || cursor.isBlank()) {
      return null;
    }
    try {
      String text =
          new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.US_ASCII);
      int dot = text.indexOf('.');
      if (dot > 0 && text.indexOf('.', dot + 1) < 0) {
        long micros = Long.parseLong(text.substring(0, dot));
        long id = Long.parseLong(text.substring(dot + 1));
        if (id >= 0) {
          return new Cursor(Instant.EPOCH.plus(micros, ChronoUnit.MICROS), id);
        }
      }
    } catch (IllegalArgumentException | ArithmeticException | java.time.DateTimeException e) {
      // reported below
    }
    throw Problems.badParameter("cursor", "is not a cursor this API returned");
  }
}
