package io.punctual.app.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.client.ClientJson;

/**
 * A client's request ({@code JobRequest}, {@code WorkflowRequest}) as the JSON the Java client
 * sends ({@link ClientJson#requests()}: ISO-8601 times and durations, no nulls), and read back:
 * what a transactional submit parses and what the outbox stores and forwards. Reading tolerates new
 * fields and keeps a payload's decimals exact (jsonb keeps them exactly).
 */
public final class RequestJson {
  private static final ObjectMapper MAPPER =
      ClientJson.requests().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

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
