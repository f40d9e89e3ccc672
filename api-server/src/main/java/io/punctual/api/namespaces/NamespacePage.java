package io.punctual.api.namespaces;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A page of {@code GET /namespaces}; {@code nextCursor} is null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record NamespacePage(List<NamespaceRepresentation> items, String nextCursor) {}
