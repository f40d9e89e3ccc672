package io.punctual.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/** One attempt of a job (one row of {@code job_executions}). */
public record Execution(
    UUID jobId,
    int attempt,
    String workerId,
    ExecutionStatus status,
    Instant startedAt,
    Instant finishedAt,
    Long durationMs,
    String error,
    String stackTrace,
    JsonNode result) {}
