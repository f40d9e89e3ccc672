package io.punctual.client;

import java.time.Instant;

/**
 * One attempt of a job. {@code status} is RUNNING, SUCCEEDED, FAILED, TIMED_OUT, CANCELLED, LOST or
 * HANDED_BACK.
 */
public record ExecutionView(
    int attempt,
    String status,
    String workerId,
    Instant startedAt,
    Instant finishedAt,
    Long durationMs,
    String error) {}
