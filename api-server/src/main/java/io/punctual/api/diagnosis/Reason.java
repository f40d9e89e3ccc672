package io.punctual.api.diagnosis;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reason of a diagnosis: a stable {@code code}, a {@code message} in words, and the data it
 * names as fields of its own ({@code dueAt}, {@code jobIds}, {@code namespace}, {@code type}...).
 */
@JsonPropertyOrder({"code", "message"})
public final class Reason {
  private final String code;
  private final String message;
  private final Map<String, Object> data = new LinkedHashMap<>();

  public Reason(String code, String message) {
    this.code = code;
    this.message = message;
  }

  /** Adds a data field (null values are left out). */
  public Reason with(String field, Object value) {
    if (value != null) {
      data.put(field, value);
    }
    return this;
  }

  @JsonProperty("code")
  public String code() {
    return code;
  }

  @JsonProperty("message")
  public String message() {
    return message;
  }

  @JsonAnyGetter
  public Map<String, Object> data() {
    return Collections.unmodifiableMap(data);
  }
}
