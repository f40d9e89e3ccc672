package io.punctual.api.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.store.alert.AlertDelivery;
import java.time.Instant;
import java.util.List;

/**
 * A page of {@code GET /alert-rules/{id}/deliveries}, newest first; {@code nextCursor} (the last id
 * of the page) is null on the last page.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record DeliveryPage(List<Delivery> items, String nextCursor) {

  /** One notice: what was (or will be) sent, and how sending went. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Delivery(
      String id,
      String kind,
      String status,
      String dedupKey,
      String subject,
      String incidentId,
      int attempts,
      String dueAt,
      String nextAttemptAt,
      String lastAttemptAt,
      Integer lastResponse,
      String lastError,
      String sentAt,
      String createdAt,
      JsonNode body) {

    static Delivery of(AlertDelivery d) {
      return new Delivery(
          Long.toString(d.id()),
          d.kind(),
          d.status(),
          d.dedupKey(),
          d.subject(),
          d.incidentId().toString(),
          d.attempts(),
          text(d.dueAt()),
          "pending".equals(d.status()) ? text(d.nextAttemptAt()) : null,
          text(d.lastAttemptAt()),
          d.lastResponse(),
          d.lastError(),
          text(d.sentAt()),
          text(d.createdAt()),
          d.payload());
    }

    private static String text(Instant t) {
      return t == null ? null : t.toString();
    }
  }
}
