package io.punctual.requests.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.Fields;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.JobFields;
import io.punctual.requests.StorableText;
import io.punctual.requests.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Validates job requests field by field, so that every error names its field ({@code "priority"},
 * {@code "backoff.factor"}, {@code "jobs[3].runAt"}). Invalid fields end the request with a 422
 * problem listing all of them; an oversized payload with a 413. Text no job may hold (a NUL, a lone
 * surrogate: see {@link StorableText}) anywhere in a body ends it with a 422 naming each such field
 * before anything else is read.
 */
public final class JobRequestParser {
  public static final int MAX_KEY_LENGTH = 200;

  private static final Set<String> FIELDS =
      Set.of(
          "type",
          "payload",
          "runAt",
          "delay",
          "priority",
          "maxAttempts",
          "backoff",
          "timeout",
          "idempotencyKey",
          "concurrencyKey",
          "tags",
          "callback",
          "parentId",
          "runCondition",
          "dependsOn");

  /** The fields of a batch's body. */
  static final Set<String> BATCH_FIELDS = Set.of("jobs");

  /** A workflow step takes every job field, plus its ref and its parent by ref. */
  private static final Set<String> STEP_FIELDS = union(FIELDS, Set.of("ref", "parent"));

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new java.util.HashSet<>(a);
    out.addAll(b);
    return Set.copyOf(out);
  }

  private final SubmitLimits limits;
  private final JobFields jobFields;

  public JobRequestParser(SubmitLimits limits) {
    this.limits = limits;
    this.jobFields = new JobFields(limits.rules());
  }

  /** The body of {@code POST /jobs} (the caller refuses a missing body first). */
  public ValidatedJob parseOne(JsonNode body) {
    StorableText.require(body, "");
    Violations violations = new Violations();
    ValidatedJob job = parse(body, "", violations, false);
    violations.throwIfAny();
    return job;
  }

  /**
   * The body of {@code POST /jobs/batch}: {@code {"jobs": [...]}}, all valid or none stored (the
   * caller refuses a missing body first).
   */
  public List<ValidatedJob> parseBatch(JsonNode body) {
    StorableText.require(body, "");
    JsonNode jobs = body == null ? null : body.get("jobs");
    if (!(body instanceof ObjectNode object) || jobs == null || !jobs.isArray() || jobs.isEmpty()) {
      throw new InvalidFieldsException("jobs", "must be a non-empty array of jobs");
    }
    Violations violations = new Violations();
    new Fields(object, "", violations).rejectUnknown(BATCH_FIELDS);
    if (jobs.size() > limits.maxBatchSize()) {
      throw new FieldTooLargeException(
          "jobs", "A batch holds at most " + limits.maxBatchSize() + " jobs, not " + jobs.size());
    }
    List<ValidatedJob> out = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      out.add(parse(jobs.get(i), "jobs[" + i + "].", violations, false));
    }
    violations.throwIfAny();
    return out;
  }

  /** One job; {@code inWorkflow}: a workflow step (refs allowed, idempotency keys not). */
  ValidatedJob parse(JsonNode node, String prefix, Violations violations, boolean inWorkflow) {
    if (!(node instanceof ObjectNode object)) {
      String field = prefix.isEmpty() ? null : prefix.substring(0, prefix.length() - 1);
      violations.add(field, "must be a JSON object describing a job");
      return null;
    }
    Fields f = new Fields(object, prefix, violations);
    int before = f.errorCount();
    f.rejectUnknown(inWorkflow ? STEP_FIELDS : FIELDS);
    String type = jobFields.type(f);
    JsonNode payload = jobFields.payload(f);
    JobFields.Due due = jobFields.due(f);
    Priority priority = jobFields.priority(f);
    int maxAttempts = jobFields.maxAttempts(f);
    Backoff backoff = jobFields.backoff(f);
    Duration timeout = jobFields.timeout(f);
    String key = f.string("idempotencyKey", false, MAX_KEY_LENGTH);
    if (inWorkflow && key != null) {
      f.error(
          "idempotencyKey",
          "is not taken per step; give the workflow an idempotencyKey to make its submission safe"
              + " to repeat");
    }
    String concurrencyKey = f.string("concurrencyKey", false, MAX_KEY_LENGTH);
    List<String> tags = jobFields.tags(f);
    ObjectNode callback = jobFields.callback(f);
    LinksParser.Links links = LinksParser.parse(f, inWorkflow, limits.maxWorkflowJobs());
    if (f.errorCount() > before) {
      return null;
    }
    return new ValidatedJob(
        type,
        payload,
        due.runAt(),
        due.delay(),
        priority,
        maxAttempts,
        backoff,
        timeout,
        key,
        tags,
        callback,
        links,
        concurrencyKey,
        null);
  }
}
