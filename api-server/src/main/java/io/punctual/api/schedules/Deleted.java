package io.punctual.api.schedules;

/** {@code DELETE /schedules/{id}}: which schedule went, and how many future jobs were cancelled. */
public record Deleted(String id, int cancelledJobs) {}
