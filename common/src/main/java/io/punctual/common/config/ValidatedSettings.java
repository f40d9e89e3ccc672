package io.punctual.common.config;

/**
 * A section of the configuration that checks itself: {@link #validate(SettingsErrors)} adds every
 * setting that makes no sense (so {@code ./punctual check} lists them all), {@link #validate()}
 * throws them together.
 */
public interface ValidatedSettings {
  /** Adds every setting of this section that makes no sense to {@code errors}. */
  void validate(SettingsErrors errors);

  /** Throws {@link InvalidSettingsException} naming every setting that makes no sense. */
  default void validate() {
    SettingsErrors errors = new SettingsErrors();
    validate(errors);
    errors.throwIfAny();
  }
}
