package io.punctual.spring;

import io.punctual.app.outbox.OutboxRelaySettings;
import io.punctual.app.request.JobDefaults;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.worker.config.WorkerSettings;
import java.net.URI;
import java.net.URISyntaxException;
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
  private static final Pattern YAML_NAME =
      Pattern.compile("\\b(worker|redis|queue|outbox)\\.([a-zA-Z]+)");
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
    settings.holdBackProblem(properties.getQueue().getRecoveryHoldBack()).ifPresent(errors::add);
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

  /** The outbox's API address and relay settings, valid. */
  record Outbox(URI apiUrl, OutboxRelaySettings relay) {}

  private static final Pattern RELAY_NAME =
      Pattern.compile(
          "\\b(batchSize|pollInterval|lease|firstBackoff|maxBackoff|forwardConcurrency)\\b");

  /**
   * Throws {@link InvalidSettingsException} naming every wrong {@code punctual.outbox.*} property,
   * if any: a non-HTTP {@code api-url}, or none while this instance runs a relay (an instance with
   * {@code relay=false} only writes rows and needs no API), a relay setting out of range. {@link
   * Outbox#apiUrl()} is null only without a relay.
   */
  static Outbox outbox(OutboxProperties properties) {
    List<String> problems = new ArrayList<>();
    URI api = null;
    String url = properties.getApiUrl();
    if (url == null || url.isBlank()) {
      if (properties.isRelay()) {
        problems.add("punctual.outbox.api-url is required when punctual.outbox.relay is true");
      }
    } else {
      try {
        api = new URI(url.strip());
        if (!("http".equals(api.getScheme()) || "https".equals(api.getScheme()))
            || api.getHost() == null) {
          api = null;
        }
      } catch (URISyntaxException e) {
        api = null;
      }
      if (api == null) {
        problems.add("punctual.outbox.api-url must be an http:// or https:// URL with a host");
      }
    }
    OutboxRelaySettings relay = null;
    try {
      relay = properties.toSettings();
    } catch (IllegalArgumentException | NullPointerException e) {
      String message =
          e instanceof NullPointerException ? e.getMessage() + " is required" : e.getMessage();
      // The record names its fields (maxBackoff): as the YAML would (outbox.maxBackoff), renamed.
      problems.add(propertyNames(RELAY_NAME.matcher(message).replaceAll("outbox.$1")));
    }
    if (!problems.isEmpty()) {
      throw new InvalidSettingsException(problems);
    }
    return new Outbox(api, relay);
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
