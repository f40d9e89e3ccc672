package io.punctual.model;

import java.util.regex.Pattern;

/**
 * The names a namespace may have: 1 to 100 letters, digits, {@code .}, {@code _}, {@code :} or
 * {@code -}, starting with a letter or digit. Namespaces end up in Redis keys inside a {@code
 * {...}} hash tag, so braces and spaces are out. The API's check and the outbox's are this one.
 */
public final class NamespaceName {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");

  private NamespaceName() {}

  /** Whether {@code name} is a namespace name (null is not). */
  public static boolean isValid(String name) {
    return name != null && NAME.matcher(name).matches();
  }
}
