package io.punctual.api.schedules;

import java.time.Instant;
import java.util.List;

/** {@code GET /schedules/{id}/preview}: the next fire times, UTC. */
public record Preview(List<Instant> fireTimes) {}
