package io.punctual.api.bulk;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The body answering a bulk action and its progress ({@code status}: running, done, failed; {@code
 * failed}: jobs not acted on because their state had changed since the action was accepted; {@code
 * error}: why a failed action was abandoned or stopped by its namespace's maxPending, or why a
 * running one's last batch failed).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BulkAction(
    String id, String action, String status, int count, int done, int failed, String error) {}
