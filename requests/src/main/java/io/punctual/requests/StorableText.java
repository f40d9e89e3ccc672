package io.punctual.requests;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;

/**
 * The one check of the text a request carries: no NUL character (U+0000), which PostgreSQL text and
 * JSON columns cannot hold, and no lone UTF-16 surrogate (a JSON {@code "\ud800"} with no low
 * surrogate after it), which has no UTF-8 form and would be stored as {@code "?"}. A valid
 * surrogate pair (an emoji) is text like any other. Nothing is trimmed: a trailing NUL is refused
 * like any other. The walk over a body also refuses a number beyond a double's range ({@code
 * 1e400}): it parses as infinity, which JSON cannot hold, and would be stored as the string {@code
 * "Infinity"}.
 *
 * <p>Request bodies are walked whole ({@link #check(JsonNode, String, Violations)}: every string
 * value and every field name, at any depth), query parameters and headers are checked one by one
 * ({@link #problem(String)}).
 */
public final class StorableText {
  /** The error for a number too large for a double ({@code 1e400}). */
  public static final String NOT_FINITE = "must be a number within the range of a double";

  private StorableText() {}

  /** Why {@code text} cannot be taken ({@code "must not contain ..."}), or empty when it can. */
  public static Optional<String> problem(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\u0000') {
        return Optional.of("must not contain a NUL character (U+0000)");
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return Optional.of(
            String.format("must not contain a lone UTF-16 surrogate (U+%04X)", (int) c));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code text} with each NUL and lone surrogate spelled as a JSON escape ({@code \u0000}), so a
   * field it names can be told in an answer (which could not carry a lone surrogate).
   */
  public static String printable(String text) {
    if (problem(text).isEmpty()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        out.append(c).append(text.charAt(++i));
      } else if (c == '\u0000' || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * Records, under its path, every string value and field name in {@code node} (at any depth) that
   * cannot be taken: {@code payload.customer.name}, {@code jobs[2].tags[0]}; a field name under the
   * path it makes, spelled with {@link #printable}.
   *
   * @param path the path of {@code node} itself ({@code ""} for a whole body)
   */
  public static void check(JsonNode node, String path, Violations violations) {
    if (node == null) {
      return;
    }
    if (node.isTextual()) {
      problem(node.textValue()).ifPresent(p -> violations.add(path.isEmpty() ? null : path, p));
    } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
      // 1e400 parses as infinity, which JSON cannot hold: it would be stored as "Infinity"
      violations.add(path.isEmpty() ? null : path, NOT_FINITE);
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        String name = field.getKey();
        String child = (path.isEmpty() ? "" : path + ".") + printable(name);
        Optional<String> bad = problem(name);
        if (bad.isPresent()) {
          violations.add(child, bad.get() + " in its name");
        } else {
          check(field.getValue(), child, violations);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        check(node.get(i), path + "[" + i + "]", violations);
      }
    }
  }

  /**
   * Rejects a request body if any of its text cannot be taken, naming every such field.
   *
   * @param path the path of the body's fields ({@code ""}, or {@code "schedules[2]"})
   * @throws InvalidFieldsException naming every field with such text
   */
  public static void require(JsonNode body, String path) {
    Violations violations = new Violations();
    check(body, path, violations);
    violations.throwIfAny();
  }
}
