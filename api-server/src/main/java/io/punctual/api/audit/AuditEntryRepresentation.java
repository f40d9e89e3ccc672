package io.punctual.api.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.store.AuditStore.Stored;
import java.time.Instant;

/** One entry of {@code GET /audit}; absent fields are null. */
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
    String problem) {

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
        e.problem());
  }
}
