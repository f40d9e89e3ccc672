package io.punctual.api.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.problem.Problems;
import io.punctual.model.JobId;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.requests.CallbackParser;
import io.punctual.requests.Fields;
import io.punctual.requests.JobFields;
import io.punctual.requests.Violations;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertRule.Channel;
import io.punctual.store.alert.AlertRule.Draft;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The body of {@code POST} and {@code PUT /api/v1/alert-rules}: {@code {"name", "when": {"event",
 * "type"?, "scheduleId"?, "count"?, "percent"?, "window"?, "threshold"?}, "notify": {"webhook":
 * url} or {"slack": url}, "cooldown"?}}. Each field of {@code when} is accepted only for the events
 * it applies to; every mistake is a 422 naming its field.
 */
final class AlertRuleParser {
  static final int MAX_NAME_LENGTH = 200;
  static final int MAX_URL_LENGTH = 2000;
  static final int MAX_COUNT = 1000;
  static final Duration DEFAULT_COOLDOWN = Duration.ofMinutes(10);
  static final Duration MAX_COOLDOWN = Duration.ofDays(7);

  /** What a read shows instead of a Slack URL's path (the URL is the credential). */
  static final String HIDDEN = "(hidden)";

  private static final Set<String> FIELDS = Set.of("name", "when", "notify", "cooldown");
  private static final Set<String> WHEN_FIELDS =
      Set.of("event", "type", "scheduleId", "count", "percent", "window", "threshold");
  private static final Set<String> NOTIFY_FIELDS = Set.of("webhook", "slack");

  private final OutboundPolicy policy;

  AlertRuleParser(OutboundPolicy policy) {
    this.policy = policy;
  }

  Draft parse(JsonNode body) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(FIELDS);
    String name = f.string("name", true, MAX_NAME_LENGTH);
    if (name != null && name.isBlank()) {
      f.error("name", "must not be blank");
    }
    Duration cooldown = f.duration("cooldown", false);
    if (cooldown != null && cooldown.compareTo(MAX_COOLDOWN) > 0) {
      f.error("cooldown", "must be at most " + MAX_COOLDOWN);
    }
    When when = when(f, violations);
    Notify notify = notify(f, violations);
    violations.throwIfAny();
    return new Draft(
        name.strip(),
        when.event(),
        when.type(),
        when.scheduleId(),
        when.count(),
        when.percent(),
        when.window(),
        when.threshold(),
        notify.channel(),
        notify.url(),
        cooldown == null ? DEFAULT_COOLDOWN : cooldown);
  }

  private record When(
      AlertEvent event,
      String type,
      UUID scheduleId,
      Integer count,
      Integer percent,
      Duration window,
      Duration threshold) {}

  private record Notify(Channel channel, String url) {}

  private static When when(Fields parent, Violations violations) {
    JsonNode value = parent.get("when");
    if (!(value instanceof ObjectNode object)) {
      parent.error("when", value == null ? "is required" : "must be an object with an event");
      return new When(null, null, null, null, null, null, null);
    }
    Fields f = new Fields(object, "when.", violations);
    f.rejectUnknown(WHEN_FIELDS);
    String eventName = f.string("event", true, 100);
    Optional<AlertEvent> event =
        eventName == null ? Optional.empty() : AlertEvent.fromWire(eventName);
    if (eventName != null && event.isEmpty()) {
      f.error(
          "event",
          "must be one of "
              + Arrays.stream(AlertEvent.values())
                  .map(AlertEvent::wireName)
                  .collect(Collectors.joining(", ")));
    }
    if (event.isEmpty()) {
      return new When(null, null, null, null, null, null, null);
    }
    AlertEvent e = event.get();
    for (String field : List.of("type", "scheduleId", "count", "percent", "window", "threshold")) {
      if (f.has(field) && !e.takes(field)) {
        f.error(field, "does not apply to event " + e.wireName());
      } else if (!f.has(field) && e.requires(field)) {
        f.error(field, "is required for event " + e.wireName());
      }
    }
    String type = e.takes("type") ? f.string("type", false, JobFields.MAX_TYPE_LENGTH) : null;
    UUID scheduleId = null;
    if (e.takes("scheduleId") && f.has("scheduleId")) {
      String id = f.string("scheduleId", false, 100);
      scheduleId = id == null ? null : JobId.parse(id).orElse(null);
      if (id != null && scheduleId == null) {
        f.error("scheduleId", "must be a schedule id (a UUID)");
      }
    }
    Integer count = e.takes("count") ? f.integer("count", 1, MAX_COUNT) : null;
    Integer percent = e.takes("percent") ? f.integer("percent", 1, 100) : null;
    Duration window = e.takes("window") ? f.duration("window", true) : null;
    Duration threshold = e.takes("threshold") ? f.duration("threshold", true) : null;
    return new When(e, type, scheduleId, count, percent, window, threshold);
  }

  private Notify notify(Fields parent, Violations violations) {
    JsonNode value = parent.get("notify");
    if (!(value instanceof ObjectNode object)) {
      parent.error(
          "notify",
          value == null
              ? "is required"
              : "must be an object: {\"webhook\": url} or {\"slack\": url}");
      return new Notify(null, null);
    }
    Fields f = new Fields(object, "notify.", violations);
    f.rejectUnknown(NOTIFY_FIELDS);
    if (f.has("webhook") == f.has("slack")) {
      parent.error("notify", "must have exactly one of webhook and slack");
      return new Notify(null, null);
    }
    Channel channel = f.has("webhook") ? Channel.WEBHOOK : Channel.SLACK;
    String field = channel.wireName();
    String url = f.string(field, true, MAX_URL_LENGTH);
    if (url != null) {
      if (url.contains(HIDDEN)) {
        f.error(
            field,
            "is the placeholder reads show instead of a Slack URL's path: give the URL itself");
      } else {
        CallbackParser.urlProblem(url, policy).ifPresent(problem -> f.error(field, problem));
      }
    }
    return new Notify(channel, url);
  }
}
