package io.punctual.app.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.common.json.Json;
import io.punctual.requests.FieldError;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.RequestRejectedException;
import io.punctual.requests.jobs.JobRequestParser;
import io.punctual.requests.jobs.ValidatedJob;
import io.punctual.requests.jobs.WorkflowRequestParser;
import io.punctual.requests.jobs.WorkflowRequestParser.ValidatedWorkflow;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * A client's {@link JobRequest} (or {@link WorkflowRequest}) as the jobs to store, validated by the
 * API's own parser ({@code punctual-requests}): the request is written as the JSON the Java client
 * sends and read as {@code POST /jobs}, {@code /jobs/batch} or {@code /workflows} reads its body,
 * so a transactional submit has the API's fields, limits, defaults ({@link JobDefaults}) and, for a
 * request with an idempotency key, request hash: a request repeated in a transaction or over REST
 * is one job.
 */
public final class JobRequestMapper {
  /** What the API reads a body with (Dropwizard's mapper, configured as Punctual configures it). */
  private static final ObjectMapper API_JSON =
      Json.strictForRequests(Json.configure(new ObjectMapper()));

  private final JobRequestParser jobs;
  private final WorkflowRequestParser workflows;

  public JobRequestMapper(JobDefaults defaults) {
    Objects.requireNonNull(defaults, "defaults");
    this.jobs = new JobRequestParser(defaults.limits());
    this.workflows = new WorkflowRequestParser(defaults.limits());
  }

  /**
   * One job ({@code POST /jobs}), validated and filled in; {@code toNewJob} makes the job to store.
   *
   * @throws InvalidJobRequestException naming the first field the API would refuse
   */
  public ValidatedJob one(JobRequest request) {
    Objects.requireNonNull(request, "request");
    try {
      return jobs.parseOne(body(request));
    } catch (RequestRejectedException e) {
      throw refused(e);
    }
  }

  /**
   * The jobs of a batch ({@code POST /jobs/batch}: at most {@link JobDefaults#MAX_BATCH_SIZE}), all
   * valid or none; errors name the job ({@code jobs[2].type}).
   */
  public List<ValidatedJob> batch(List<JobRequest> requests) {
    ObjectNode batch = JsonNodeFactory.instance.objectNode();
    ArrayNode array = batch.putArray("jobs");
    for (JobRequest request : requests) {
      array.add(body(Objects.requireNonNull(request, "request")));
    }
    try {
      return jobs.parseBatch(batch);
    } catch (RequestRejectedException e) {
      throw refused(e);
    }
  }

  /**
   * A workflow ({@code POST /workflows}): its steps with refs, parents and dependencies checked
   * (every ref names a step, no cycle).
   */
  public ValidatedWorkflow workflow(WorkflowRequest request) {
    Objects.requireNonNull(request, "request");
    try {
      return workflows.parse(body(request));
    } catch (RequestRejectedException e) {
      throw refused(e);
    }
  }

  /** The request as the API receives it: the client's bytes, read back as a REST body is. */
  private static JsonNode body(Object request) {
    byte[] bytes;
    try {
      bytes = RequestJson.bytes(request);
    } catch (JsonProcessingException e) {
      throw new InvalidJobRequestException(
          "payload", "cannot be written as JSON: " + e.getOriginalMessage());
    }
    try {
      return API_JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read back the request's JSON", e);
    }
  }

  private static InvalidJobRequestException refused(RequestRejectedException e) {
    return switch (e) {
      case InvalidFieldsException invalid -> {
        FieldError first = invalid.errors().get(0);
        yield new InvalidJobRequestException(
            first.field(), first.message(), invalid.errors().size());
      }
      case FieldTooLargeException tooLarge ->
          new InvalidJobRequestException(tooLarge.field(), tooLarge.detail(), 1);
    };
  }
}
