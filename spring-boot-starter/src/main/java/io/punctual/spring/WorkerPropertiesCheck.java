package io.punctual.spring;

import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.worker.config.WorkerSettings;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validates {@code punctual.worker.*} as the YAML's {@code worker} section is, naming each wrong
 * setting by its property ({@code punctual.worker.lease-ttl}), not by the YAML's name.
 */
final class WorkerPropertiesCheck {
  private static final Pattern YAML_NAME = Pattern.compile("\\bworker\\.([a-zA-Z]+)");
  private static final Pattern CAPITAL = Pattern.compile("([A-Z])");

  private WorkerPropertiesCheck() {}

  /**
   * Throws {@link InvalidSettingsException} naming every wrong property, if any.
   *
   * @return the settings, valid
   */
  static WorkerSettings validated(PunctualProperties properties) {
    WorkerSettings settings = properties.getWorker().toSettings(properties.getNamespace());
    SettingsErrors errors = new SettingsErrors();
    settings.validate(errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(
          errors.messages().stream().map(WorkerPropertiesCheck::propertyNames).toList());
    }
    return settings;
  }

  /** {@code worker.leaseTtl must be positive}: {@code punctual.worker.lease-ttl must be ...}. */
  static String propertyNames(String message) {
    Matcher m = YAML_NAME.matcher(message);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String kebab =
          CAPITAL.matcher(m.group(1)).replaceAll("-$1").toLowerCase(java.util.Locale.ROOT);
      m.appendReplacement(out, Matcher.quoteReplacement("punctual.worker." + kebab));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Every message, renamed. */
  static List<String> propertyNames(List<String> messages) {
    return messages.stream().map(WorkerPropertiesCheck::propertyNames).toList();
  }
}
