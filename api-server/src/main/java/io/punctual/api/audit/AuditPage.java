package io.punctual.api.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A page of {@code GET /audit}, newest first; {@code nextCursor} is null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record AuditPage(List<AuditEntryRepresentation> items, String nextCursor) {}
