package io.punctual.app.outbox;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.punctual.client.JobRequest;

/**
 * A {@link JobRequest} as the outbox stores it (jsonb) and reads it back: the JSON the Java client
 * sends (ISO-8601 times and durations, no nulls), the payload read back as a tree, so that a
 * request forwarded twice is the same body twice.
 */
final class OutboxJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          // a payload's decimals read back exactly (jsonb keeps them exactly), not as doubles
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setDefaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS));

  private OutboxJson() {}

  static String write(JobRequest request) {
    try {
      return MAPPER.writeValueAsString(request);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write the request as JSON: " + e.getMessage(), e);
    }
  }

  /** The stored request; its payload a JSON tree. */
  static JobRequest read(String json) {
    try {
      return MAPPER.readValue(json, JobRequest.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable outbox request: " + e.getMessage(), e);
    }
  }
}
