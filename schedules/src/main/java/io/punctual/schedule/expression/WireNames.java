package io.punctual.schedule.expression;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Enum constants as the API and the database spell them: lower case ({@code fire_once}). */
public final class WireNames {
  private WireNames() {}

  public static String of(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** The constant whose lower-case name is {@code value} (case and surrounding blanks ignored). */
  public static <E extends Enum<E>> Optional<E> parse(Class<E> type, String value) {
    if (value == null) {
      return Optional.empty();
    }
    String wanted = value.trim().toUpperCase(Locale.ROOT);
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(wanted)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** {@code "a, b, c"}: every wire name of {@code type}, for error messages. */
  public static String list(Class<? extends Enum<?>> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(WireNames::of)
        .collect(Collectors.joining(", "));
  }
}
