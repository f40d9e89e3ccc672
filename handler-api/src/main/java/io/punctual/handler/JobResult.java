package io.punctual.handler;

import com.fasterxml.jackson.databind.JsonNode;

/** What a successful attempt returns; {@code result} (may be null) is stored on the job. */
public record JobResult(JsonNode result) {
  private static final JobResult EMPTY = new JobResult(null);

  public static JobResult success() {
    return EMPTY;
  }

  public static JobResult success(JsonNode result) {
    return new JobResult(result);
  }
}
