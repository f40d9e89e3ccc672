package io.punctual.common.config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Refuses secrets that were typed, not generated: a value copied from an example or a placeholder
 * ({@code change-me}, {@code example}, {@code secret}, {@code password}, {@code placeholder}, in
 * any case) or one character repeated six or more times in a row. What is said about a secret never
 * quotes it: only which of these rules it breaks.
 */
public final class WeakSecrets {
  /** Words of example values and placeholders, lower case; a secret holding one is refused. */
  public static final List<String> WORDS =
      List.of("change-me", "change_me", "changeme", "example", "secret", "password", "placeholder");

  /** A run of this many equal characters is refused. */
  public static final int MAX_RUN = 5;

  private WeakSecrets() {}

  /**
   * Why {@code secret} looks typed rather than generated ({@code "contains the word \"example\""}),
   * or empty when it does not.
   */
  public static Optional<String> weakness(String secret) {
    if (secret == null) {
      return Optional.empty();
    }
    String lower = secret.toLowerCase(Locale.ROOT);
    for (String word : WORDS) {
      if (lower.contains(word)) {
        return Optional.of("contains the word \"" + word + "\"");
      }
    }
    int run = 1;
    for (int i = 1; i < secret.length(); i++) {
      run = secret.charAt(i) == secret.charAt(i - 1) ? run + 1 : 1;
      if (run > MAX_RUN) {
        return Optional.of("repeats one character " + (MAX_RUN + 1) + " or more times in a row");
      }
    }
    return Optional.empty();
  }

  /**
   * Adds an error naming {@code setting} to {@code errors} when {@code secret} is weak (see {@link
   * #weakness}); nothing for a null secret.
   */
  public static void check(String secret, String setting, SettingsErrors errors) {
    weakness(secret)
        .ifPresent(
            why ->
                errors.add(
                    setting
                        + " looks like an example or a placeholder (it "
                        + why
                        + "): use a random value, e.g. `openssl rand -base64 48`"));
  }
}
