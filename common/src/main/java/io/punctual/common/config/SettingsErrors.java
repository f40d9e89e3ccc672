package io.punctual.common.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects what is wrong with a configuration, so that it is reported all at once (every setting
 * that makes no sense, not only the first). Each settings class adds to it in {@code
 * validate(SettingsErrors)}; {@link #throwIfAny()} ends the check.
 */
public final class SettingsErrors {
  private final List<String> messages = new ArrayList<>();

  /** Adds {@code message} unless {@code ok}. */
  public SettingsErrors require(boolean ok, String message) {
    if (!ok) {
      messages.add(message);
    }
    return this;
  }

  /** Requires a duration that is set and above zero. */
  public SettingsErrors positive(Duration value, String name) {
    return require(value != null && value.isPositive(), name + " must be positive");
  }

  public SettingsErrors add(String message) {
    messages.add(message);
    return this;
  }

  public SettingsErrors addAll(List<String> more) {
    messages.addAll(more);
    return this;
  }

  public List<String> messages() {
    return List.copyOf(messages);
  }

  public boolean isEmpty() {
    return messages.isEmpty();
  }

  /** Throws {@link InvalidSettingsException} naming every error found, if there is any. */
  public void throwIfAny() {
    if (!messages.isEmpty()) {
      throw new InvalidSettingsException(messages);
    }
  }
}
