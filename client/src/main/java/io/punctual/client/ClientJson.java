package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The client's Jackson setup: ISO-8601 times and durations, tolerant of new fields. */
public final class ClientJson {
  static final ObjectMapper MAPPER =
      requests().enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);

  private ClientJson() {}

  /**
   * A new mapper that writes a request ({@link JobRequest}, {@link WorkflowRequest}) as the client
   * sends it: ISO-8601 times and durations, no nulls; reading tolerates new fields and keeps times
   * in the offset they were written with. Code that must write the same bytes as the client (the
   * request hash of an idempotency key depends on them) starts from this one.
   */
  public static ObjectMapper requests() {
    return new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .setDefaultPropertyInclusion(
            JsonInclude.Value.construct(
                JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS));
  }
}
