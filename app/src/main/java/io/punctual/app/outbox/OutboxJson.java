package io.punctual.app.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.punctual.app.request.RequestJson;
import io.punctual.client.JobRequest;

/**
 * A {@link JobRequest} as the outbox stores it (jsonb) and reads it back: the JSON the Java client
 * sends ({@link RequestJson}), the payload read back as a tree, so that a request forwarded twice
 * is the same body twice.
 */
final class OutboxJson {
  private OutboxJson() {}

  static String write(JobRequest request) {
    try {
      return RequestJson.string(request);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write the request as JSON: " + e.getMessage(), e);
    }
  }

  /** The stored request; its payload a JSON tree. */
  static JobRequest read(String json) {
    try {
      return RequestJson.read(json, JobRequest.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable outbox request: " + e.getMessage(), e);
    }
  }
}
