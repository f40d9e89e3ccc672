package io.punctual.api.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.store.AuditStore.Stored;
import java.time.Instant;

/**
 * One entry of {@code GET /audit}; absent fields are null. {@code kind}: {@code request} (one
 * request), {@code refusals} or {@code dropped} (summaries of {@code count} events from {@code
 * firstAt} to {@code at}).
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record AuditEntryRepresentation(
    Instant at,
    String requestId,
    String keyId,
    String keyName,
    String namespace,
    String action,
    String target,
    int status,
    String problem,
    String kind,
    int count,
    Instant firstAt,
    String source,
    String reason) {

  static AuditEntryRepresentation of(Stored stored) {
    var e = stored.entry();
    return new AuditEntryRepresentation(
        e.at(),
        e.requestId(),
        e.keyId() == null ? null : e.keyId().toString(),
        e.keyName(),
        e.namespace(),
        e.action(),
        e.target(),
        e.status(),
        e.problem(),
        e.kind(),
        e.count(),
        e.firstAt(),
        e.source(),
        e.reason());
  }
}
