package io.punctual.api.problem;

import io.punctual.requests.FieldError;
import java.util.List;

/**
 * Field paths as a problem shows them. A path is built from the request's own field names, so an
 * unknown field named with a NUL, a lone surrogate or 10 KB of text would otherwise come straight
 * back: here each control character and lone surrogate becomes U+FFFD and a path longer than {@link
 * #MAX_LENGTH} characters is cut, marked with an ellipsis.
 */
final class FieldPaths {
  static final int MAX_LENGTH = 200;

  private FieldPaths() {}

  static String printable(String path) {
    if (path == null) {
      return null;
    }
    StringBuilder out = new StringBuilder(Math.min(path.length(), MAX_LENGTH + 1));
    int i = 0;
    for (; i < path.length() && out.length() < MAX_LENGTH; i++) {
      char c = path.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < path.length()
          && Character.isLowSurrogate(path.charAt(i + 1))) {
        out.append(c).append(path.charAt(++i));
      } else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
        out.append('\uFFFD');
      } else {
        out.append(c);
      }
    }
    return i < path.length() ? out.append('\u2026').toString() : out.toString();
  }

  static List<FieldError> printable(List<FieldError> errors) {
    return errors.stream().map(e -> new FieldError(printable(e.field()), e.message())).toList();
  }
}
