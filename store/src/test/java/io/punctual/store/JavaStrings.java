package io.punctual.store;

/**
 * The SQL a Java source could send: its string literals and text blocks, in order, with literals
 * concatenated by {@code +} joined again ({@code "UPDATE jobs " + "SET status = ..."} is read as
 * one statement) and any other expression between two literals read as a parameter ({@code ?}).
 * Literals apart by a statement or a block ({@code ;}, braces) are apart by {@code ;}. Comments and
 * character literals are skipped. Good enough to find {@code UPDATE jobs} and {@code INSERT INTO
 * jobs} hidden in Java, which is all {@link StatusWrites} needs of it.
 */
final class JavaStrings {
  private JavaStrings() {}

  static String sqlOf(String java) {
    StringBuilder out = new StringBuilder();
    StringBuilder gap = new StringBuilder();
    boolean any = false;
    int i = 0;
    int n = java.length();
    while (i < n) {
      char c = java.charAt(i);
      if (c == '/' && i + 1 < n && java.charAt(i + 1) == '/') {
        int end = java.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '/' && i + 1 < n && java.charAt(i + 1) == '*') {
        int end = java.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c == '\'') {
        int j = i + 1;
        while (j < n && java.charAt(j) != '\'') {
          j += java.charAt(j) == '\\' ? 2 : 1;
        }
        gap.append('x');
        i = j + 1;
      } else if (java.startsWith("\"\"\"", i)) {
        int start = java.indexOf('\n', i) + 1;
        int end = java.indexOf("\"\"\"", start);
        end = end < 0 ? n : end;
        any = join(out, gap, any);
        out.append(java, start, end);
        i = end + 3;
      } else if (c == '"') {
        StringBuilder literal = new StringBuilder();
        int j = i + 1;
        while (j < n && java.charAt(j) != '"') {
          if (java.charAt(j) == '\\' && j + 1 < n) {
            char e = java.charAt(j + 1);
            literal.append(e == 'n' ? '\n' : e == 't' ? '\t' : e);
            j += 2;
          } else {
            literal.append(java.charAt(j++));
          }
        }
        any = join(out, gap, any);
        out.append(literal);
        i = j + 1;
      } else {
        gap.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Appends what stands between the last literal and the next one; returns true. */
  private static boolean join(StringBuilder out, StringBuilder gap, boolean any) {
    if (any) {
      String between = gap.toString();
      if (between.matches("(?s)[\\s+]*")) {
        // "a" + "b": one literal
      } else if (between.matches("(?s)[^;{}]*")) {
        out.append('?');
      } else {
        out.append("\n;\n");
      }
    }
    gap.setLength(0);
    return true;
  }
}
