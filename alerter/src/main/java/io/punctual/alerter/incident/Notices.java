package io.punctual.alerter.incident;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.store.alert.AlertRule;
import java.time.Instant;
import java.util.UUID;

/**
 * The body of a notice as a webhook receives it (a Slack channel gets {@code summary} as its {@code
 * text}). Built once, when the notice is created, so every attempt sends the same bytes.
 */
final class Notices {
  private Notices() {}

  /** {@code <rule id>:<subject>:<incident id>:<kind>}: unique per notice, the webhook-id. */
  static String dedupKey(UUID ruleId, String subject, UUID incidentId, String kind) {
    return ruleId + ":" + subject + ":" + incidentId + ":" + kind;
  }

  static ObjectNode payload(
      AlertRule rule,
      String subject,
      UUID incidentId,
      String kind,
      Instant openedAt,
      Instant resolvedAt,
      int events,
      JsonNode detail) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("type", "alert." + kind);
    body.put("dedupKey", dedupKey(rule.id(), subject, incidentId, kind));
    body.put("status", kind);
    ObjectNode r = body.putObject("rule");
    r.put("id", rule.id().toString());
    r.put("name", rule.name());
    r.put("event", rule.event().wireName());
    body.put("namespace", rule.namespace());
    body.put("subject", subject);
    ObjectNode incident = body.putObject("incident");
    incident.put("id", incidentId.toString());
    incident.put("openedAt", openedAt.toString());
    if (resolvedAt != null) {
      incident.put("resolvedAt", resolvedAt.toString());
    }
    incident.put("events", events);
    body.set("detail", detail == null ? JsonNodeFactory.instance.objectNode() : detail);
    body.put("summary", summary(rule, subject, kind, events));
    return body;
  }

  private static String summary(AlertRule rule, String subject, String kind, int events) {
    String what =
        "Punctual alert \""
            + rule.name()
            + "\" ("
            + rule.event().wireName()
            + ") in namespace "
            + rule.namespace()
            + ", "
            + subject;
    return kind.equals("resolved")
        ? "RESOLVED: " + what + " (" + events + (events == 1 ? " event)" : " events)")
        : "FIRING: " + what;
  }
}
