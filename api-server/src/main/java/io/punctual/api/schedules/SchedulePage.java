package io.punctual.api.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** A page of {@code GET /schedules}; {@code nextCursor} is null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record SchedulePage(List<ScheduleRepresentation> items, String nextCursor) {}
