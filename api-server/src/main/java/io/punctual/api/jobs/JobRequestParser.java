package io.punctual.api.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.problem.Problems;
import io.punctual.api.request.Fields;
import io.punctual.api.request.JobFields;
import io.punctual.api.request.StorableText;
import io.punctual.api.request.Violations;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import java.time.Duration;
import java.time.Instant;
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
  static final int MAX_KEY_LENGTH = 200;

  /** Keeps {@code now + delay} inside the range of job ids (year 10889) for ages to come. */
  static final Duration MAX_DELAY = Duration.ofDays(365L * 1000);

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

  private final ApiSettings settings;
  private final JobFields jobFields;

  public JobRequestParser(ApiSettings settings) {
    this.settings = settings;
    this.jobFields = new JobFields(settings.jobFieldRules());
  }

  /** The body of {@code POST /jobs}. */
  ValidatedJob parseOne(JsonNode body) {
    Problems.requireBody(body);
    StorableText.require(body, "");
    Violations violations = new Violations();
    ValidatedJob job = parse(body, "", violations, false);
    violations.throwIfAny();
    return job;
  }

  /** The body of {@code POST /jobs/batch}: {@code {"jobs": [...]}}, all valid or none stored. */
  List<ValidatedJob> parseBatch(JsonNode body) {
    Problems.requireBody(body);
    StorableText.require(body, "");
    JsonNode jobs = body == null ? null : body.get("jobs");
    if (!(body instanceof ObjectNode object) || jobs == null || !jobs.isArray() || jobs.isEmpty()) {
      throw Problems.invalid("jobs", "must be a non-empty array of jobs");
    }
    Violations violations = new Violations();
    new Fields(object, "", violations).rejectUnknown(BATCH_FIELDS);
    if (jobs.size() > settings.maxBatchSize) {
      throw Problems.tooLarge(
          "jobs", "A batch holds at most " + settings.maxBatchSize + " jobs, not " + jobs.size());
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
    Instant runAt = f.instant("runAt");
    Duration delay = f.duration("delay", false);
    if (delay != null && delay.compareTo(MAX_DELAY) > 0) {
      f.error("delay", "must be at most " + MAX_DELAY);
    }
    if (f.has("runAt") && f.has("delay")) {
      f.error("delay", "give either runAt or delay, not both");
    }
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
    LinksParser.Links links = LinksParser.parse(f, inWorkflow, settings.maxWorkflowJobs);
    if (f.errorCount() > before) {
      return null;
    }
    return new ValidatedJob(
        type,
        payload,
        runAt,
        delay,
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
