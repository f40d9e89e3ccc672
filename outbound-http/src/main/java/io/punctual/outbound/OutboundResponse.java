package io.punctual.outbound;

import java.util.Optional;

/**
 * What a callback answered: the status, the headers the handler reads, and at most {@code
 * worker.http.maxResponseBytes} of the body ({@code truncated} when there was more, which was not
 * read).
 */
public record OutboundResponse(
    int status,
    Optional<String> retryAfter,
    Optional<String> location,
    String body,
    boolean truncated) {}
