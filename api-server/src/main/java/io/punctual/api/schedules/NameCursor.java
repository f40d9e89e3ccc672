package io.punctual.api.schedules;

import io.punctual.api.problem.Problems;
import io.punctual.common.request.StorableText;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The cursor of {@code GET /schedules}: the last name of the previous page, base64url-encoded. One
 * that is not base64url of UTF-8 is a 400; one that decodes to a name no schedule may have (a NUL,
 * see {@link StorableText}) a 422 naming {@code cursor}.
 */
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
    String name;
    try {
      name =
          StandardCharsets.UTF_8
              .newDecoder()
              .decode(ByteBuffer.wrap(Base64.getUrlDecoder().decode(cursor.trim())))
              .toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      throw Problems.badParameter("cursor", "is not a cursor this API returned");
    }
    Optional<String> unstorable = StorableText.problem(name);
    if (unstorable.isPresent()) {
      throw Problems.invalid("cursor", "decodes to a name that " + unstorable.get());
    }
    return name;
  }
}
