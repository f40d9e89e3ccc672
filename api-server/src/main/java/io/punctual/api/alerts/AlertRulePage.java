package io.punctual.api.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A page of {@code GET /alert-rules}; {@code nextCursor} is null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record AlertRulePage(List<AlertRuleRepresentation> items, String nextCursor) {}
