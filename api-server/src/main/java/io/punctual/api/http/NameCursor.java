package io.punctual.api.http;

import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import io.punctual.requests.StorableText;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The cursor of a list by name ({@code GET /schedules}, {@code GET /alert-rules}): the last name of
 * the previous page, base64url-encoded. One that does not decode (strictly: base64url of UTF-8) to
 * a name such a list may hold (1 to {@code maxLength} characters, no NUL nor lone surrogate, see
 * {@link StorableText}) is a 400 naming {@code cursor}, as every other cursor this API refuses.
 */
public final class NameCursor {
  private NameCursor() {}

  /** The cursor for a page ending at {@code name}; null (the last page) for null. */
  public static String encode(String name) {
    return name == null
        ? null
        : Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(name.getBytes(StandardCharsets.UTF_8));
  }

  /** The name {@code cursor} holds; null when the parameter is absent or blank. */
  public static String decode(String cursor, int maxLength) {
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
      throw notACursor();
    }
    if (name.isEmpty() || name.length() > maxLength || StorableText.problem(name).isPresent()) {
      throw notACursor();
    }
    return name;
  }

  private static ProblemException notACursor() {
    return Problems.badParameter("cursor", "is not a cursor this API returned");
  }
}
