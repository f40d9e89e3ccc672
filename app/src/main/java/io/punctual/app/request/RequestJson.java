package io.punctual.app.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * A client's request ({@code JobRequest}, {@code WorkflowRequest}) as the JSON the Java client
 * sends (its {@code ClientJson}: ISO-8601 times and durations, no nulls), and read back: what a
 * transactional submit parses and what the outbox stores and forwards. Reading tolerates new fields
 * and keeps a payload's decimals exact (jsonb keeps them exactly).
 */
public final class RequestJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setDefaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS));

  private RequestJson() {}

  public static byte[] bytes(Object request) throws JsonProcessingException {
    return MAPPER.writeValueAsBytes(request);
  }

  public static String string(Object request) throws JsonProcessingException {
    return MAPPER.writeValueAsString(request);
  }

  public static <T> T read(String json, Class<T> type) throws JsonProcessingException {
    return MAPPER.readValue(json, type);
  }
}
