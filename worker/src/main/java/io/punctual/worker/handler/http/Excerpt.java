package io.punctual.worker.handler.http;

/**
 * What a callback answered, as it may appear in a job's {@code lastError}: at most {@link #MAX}
 * characters (then {@code ...}), whitespace runs made one space, and control and formatting
 * characters (escape sequences, bidirectional overrides) replaced by {@code ?}.
 */
public final class Excerpt {
  /** Longest excerpt, in code points, before the {@code ...} that marks a cut. */
  public static final int MAX = 200;

  private Excerpt() {}

  /** The excerpt of {@code body}; empty for no body. */
  public static String of(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String text = body.strip();
    StringBuilder out = new StringBuilder();
    int kept = 0;
    boolean space = false;
    int i = 0;
    while (i < text.length()) {
      int c = text.codePointAt(i);
      if (Character.isWhitespace(c)) {
        space = true;
        i += Character.charCount(c);
        continue;
      }
      if (kept + (space ? 2 : 1) > MAX) {
        break;
      }
      if (space) {
        out.append(' ');
        kept++;
        space = false;
      }
      out.appendCodePoint(safe(c));
      kept++;
      i += Character.charCount(c);
    }
    return i < text.length() ? out + "..." : out.toString();
  }

  private static int safe(int c) {
    int type = Character.getType(c);
    boolean unsafe =
        Character.isISOControl(c)
            || type == Character.FORMAT
            || type == Character.SURROGATE
            || type == Character.PRIVATE_USE
            || type == Character.UNASSIGNED
            || type == Character.LINE_SEPARATOR
            || type == Character.PARAGRAPH_SEPARATOR;
    return unsafe ? '?' : c;
  }
}
