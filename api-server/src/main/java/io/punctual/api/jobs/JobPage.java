package io.punctual.api.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A page of {@code GET /jobs}; {@code nextCursor} is null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record JobPage(List<JobRepresentation> items, String nextCursor) {}
