package io.punctual.common.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;

/** The one Jackson configuration Punctual uses for stored JSON: ISO-8601 times, no nulls. */
public final class Json {
  private static final ObjectMapper MAPPER = configure(new ObjectMapper());

  private Json() {}

  /**
   * Applies Punctual's settings to a mapper (Dropwizard's own one included).
   *
   * <p>Its parsers and generators borrow their buffers from a pool of the mapper's, shared by every
   * thread (bounded: at most 100 sets kept). Jackson's default keeps a set per thread, which a
   * virtual thread, new for each request, never uses twice: every request then allocated about 12
   * kB of fresh buffers for writing its answer alone, a third of all the API's allocation per
   * submit.
   */
  public static ObjectMapper configure(ObjectMapper mapper) {
    mapper.getFactory().setRecyclerPool(JsonRecyclerPools.newBoundedPool(100));
    return mapper
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .setDefaultPropertyInclusion(
            JsonInclude.Value.construct(
                JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS));
  }

  /**
   * {@code mapper} made strict about what clients send: a body is one JSON value, so anything after
   * it (a second document, "x") is refused, not dropped; so is an object naming a field twice
   * (which of the two would count?). For the mapper that reads request bodies (the API's), not for
   * {@link #mapper()}, which reads what PostgreSQL stored and need not pay for the checks.
   */
  public static ObjectMapper strictForRequests(ObjectMapper mapper) {
    return mapper
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  }

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The tree of {@code json} (null: null). An empty object, the payload of most jobs, is built
   * without a parser: a parser's set-up cost more than the rest of reading a claimed job's row.
   */
  public static JsonNode readTree(String json) {
    if (json == null) {
      return null;
    }
    if (json.equals("{}")) {
      return MAPPER.getNodeFactory().objectNode(); // a new one each time: a tree is mutable
    }
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T read(String json, Class<T> type) {
    try {
      return json == null ? null : MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
