package io.punctual.api.namespaces;

import java.time.Instant;
import java.util.UUID;

/** A namespace's signing secret as listed: never its value. */
public record SigningSecretRepresentation(UUID id, Instant createdAt) {}
