package io.punctual.store.alert;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/**
 * One notice of a rule and how its sending went: {@code kind} firing or resolved; {@code status}
 * pending, sent, failed (attempts used up) or held (the cooldown held it and the incident cleared
 * first). {@code payload} is the webhook body.
 */
public record AlertDelivery(
    long id,
    UUID ruleId,
    UUID incidentId,
    String subject,
    String kind,
    String dedupKey,
    String status,
    int attempts,
    Instant dueAt,
    Instant nextAttemptAt,
    Instant lastAttemptAt,
    Integer lastResponse,
    String lastError,
    Instant sentAt,
    Instant createdAt,
    JsonNode payload) {}
