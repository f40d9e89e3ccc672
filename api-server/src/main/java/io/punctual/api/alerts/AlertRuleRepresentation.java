package io.punctual.api.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.alert.AlertRule.Channel;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rule as the API shows it: the request's shape plus {@code id}, {@code namespace} and times. A
 * Slack URL is shown without its path (that path is the credential).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AlertRuleRepresentation(
    String id,
    String namespace,
    String name,
    Map<String, Object> when,
    @JsonProperty("notify") Map<String, String> notifyTo,
    String cooldown,
    String createdAt,
    String updatedAt) {

  static AlertRuleRepresentation of(AlertRule rule) {
    AlertRule.Draft d = rule.draft();
    Map<String, Object> when = new LinkedHashMap<>();
    when.put("event", d.event().wireName());
    if (d.jobType() != null) {
      when.put("type", d.jobType());
    }
    if (d.scheduleId() != null) {
      when.put("scheduleId", d.scheduleId().toString());
    }
    if (d.count() != null) {
      when.put("count", d.count());
    }
    if (d.percent() != null) {
      when.put("percent", d.percent());
    }
    if (d.window() != null) {
      when.put("window", d.window().toString());
    }
    if (d.threshold() != null) {
      when.put("threshold", d.threshold().toString());
    }
    String url = d.channel() == Channel.SLACK ? hidePath(d.url()) : d.url();
    return new AlertRuleRepresentation(
        rule.id().toString(),
        rule.namespace(),
        d.name(),
        when,
        Map.of(d.channel().wireName(), url),
        d.cooldown().toString(),
        rule.createdAt().toString(),
        rule.updatedAt().toString());
  }

  private static String hidePath(String url) {
    try {
      URI uri = URI.create(url);
      return uri.getScheme() + "://" + uri.getRawAuthority() + "/" + AlertRuleParser.HIDDEN;
    } catch (IllegalArgumentException e) {
      return AlertRuleParser.HIDDEN;
    }
  }
}
