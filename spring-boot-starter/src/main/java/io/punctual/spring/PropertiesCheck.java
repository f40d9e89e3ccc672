package io.punctual.spring;

import io.punctual.app.request.JobDefaults;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.worker.config.WorkerSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validates {@code punctual.redis.*}, {@code punctual.queue.*}, {@code punctual.worker.*} and
 * {@code punctual.callback-allow} as the YAML's {@code redis}, {@code queue} and {@code worker}
 * sections are, naming each wrong setting by its property ({@code punctual.worker.lease-ttl}), not
 * by the YAML's name.
 */
final class PropertiesCheck {
  private static final Pattern YAML_NAME = Pattern.compile("\\b(worker|redis|queue)\\.([a-zA-Z]+)");
  private static final Pattern CAPITAL = Pattern.compile("([A-Z])");

  private PropertiesCheck() {}

  /** The stores' settings, valid. */
  record Stores(RedisSettings redis, QueueSettings queue) {}

  /**
   * Throws {@link InvalidSettingsException} naming every wrong {@code punctual.redis.*} and {@code
   * punctual.queue.*} property, if any.
   */
  static Stores stores(PunctualProperties properties) {
    List<String> problems = new ArrayList<>();
    RedisSettings redis = properties.getRedis().toSettings();
    QueueSettings queue = properties.getQueue().toSettings(problems);
    SettingsErrors errors = new SettingsErrors();
    redis.validate(errors);
    queue.validate(errors);
    problems.addAll(errors.messages());
    throwIfAny(problems);
    return new Stores(redis, queue);
  }

  /**
   * Throws {@link InvalidSettingsException} naming every wrong {@code punctual.worker.*} property,
   * if any.
   *
   * @return the settings, valid
   */
  static WorkerSettings worker(PunctualProperties properties) {
    WorkerSettings settings = properties.getWorker().toSettings(properties.getNamespace());
    SettingsErrors errors = new SettingsErrors();
    settings.validate(errors);
    throwIfAny(errors.messages());
    return settings;
  }

  /**
   * The API's job defaults with {@code punctual.callback-allow}; throws {@link
   * InvalidSettingsException} naming each entry that is not a CIDR block, an address or a host.
   */
  static JobDefaults jobDefaults(PunctualProperties properties) {
    try {
      return JobDefaults.API.withCallbackAllow(properties.getCallbackAllow());
    } catch (InvalidSettingsException e) {
      throw new InvalidSettingsException(
          e.errors().stream()
              .map(m -> m.replace("callbackAllow", "punctual.callback-allow"))
              .toList());
    }
  }

  private static void throwIfAny(List<String> messages) {
    if (!messages.isEmpty()) {
      throw new InvalidSettingsException(propertyNames(messages));
    }
  }

  /** {@code worker.leaseTtl must be positive}: {@code punctual.worker.lease-ttl must be ...}. */
  static String propertyNames(String message) {
    Matcher m = YAML_NAME.matcher(message);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String kebab =
          CAPITAL.matcher(m.group(2)).replaceAll("-$1").toLowerCase(java.util.Locale.ROOT);
      m.appendReplacement(out, Matcher.quoteReplacement("punctual." + m.group(1) + "." + kebab));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Every message, renamed. */
  static List<String> propertyNames(List<String> messages) {
    return messages.stream().map(PropertiesCheck::propertyNames).toList();
  }
}
