package io.punctual.app.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.app.request.RequestJson;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.model.NamespaceName;

/**
 * What a row asks for, as the outbox stores it (jsonb) and reads it back: the JSON the Java client
 * sends ({@link RequestJson}), payloads read back as trees, so that a request forwarded twice is
 * the same body twice.
 *
 * <p>A job for the relay's own namespace is stored as the {@link JobRequest} itself (the rows of
 * the first release); a workflow, or a job for another namespace, as an envelope {@code
 * {"namespace": ..., "job": {...}}} or {@code {"namespace": ..., "workflow": {...}}} (a job request
 * has neither field).
 */
final class OutboxJson {
  private OutboxJson() {}

  /**
   * A row's request: exactly one of {@code job} and {@code workflow}; namespace null: the relay's.
   */
  record Stored(String namespace, JobRequest job, WorkflowRequest workflow) {}

  static String write(Stored stored) {
    try {
      return stored.namespace() == null && stored.job() != null
          ? RequestJson.string(stored.job())
          : RequestJson.string(stored);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write the request as JSON: " + e.getMessage(), e);
    }
  }

  /** The stored request; payloads JSON trees. */
  static Stored read(String json) {
    try {
      JsonNode tree = RequestJson.read(json, JsonNode.class);
      if (tree.has("job") || tree.has("workflow")) {
        Stored stored = RequestJson.read(json, Stored.class);
        if ((stored.job() == null) == (stored.workflow() == null)) {
          throw new IllegalStateException("an outbox row holds one job or one workflow");
        }
        if (tree.has("namespace") && !NamespaceName.isValid(stored.namespace())) {
          throw new IllegalStateException(
              "an outbox row names no namespace the API takes: " + tree.get("namespace"));
        }
        return stored;
      }
      return new Stored(null, RequestJson.read(json, JobRequest.class), null);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable outbox request: " + e.getMessage(), e);
    }
  }
}
