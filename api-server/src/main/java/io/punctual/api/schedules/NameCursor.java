package io.punctual.api.schedules;

import io.punctual.api.problem.Problems;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The cursor of {@code GET /schedules}: the last name of the previous page, base64url-encoded. */
final class NameCursor {
  private NameCursor() {}

  static String encode(String name) {
    return name == null
        ? null
        : Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(name.getBytes(StandardCharsets.UTF_8));
  }

  static String decode(String cursor) {
    if (cursor == null || cursor.isBlank()) {
      return null;
    }
    try {
      return new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw Problems.badParameter("cursor", "is not a cursor this API returned");
    }
  }
}
