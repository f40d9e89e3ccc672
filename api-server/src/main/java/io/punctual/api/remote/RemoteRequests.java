package io.punctual.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.problem.Problems;
import io.punctual.handler.FollowUp;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.model.Progress;
import io.punctual.requests.Fields;
import io.punctual.requests.JobFields;
import io.punctual.requests.Violations;
import io.punctual.requests.jobs.JobRequestParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The worker protocol's request bodies, validated: every refusal is a 422 naming the field (or a
 * 400 for a body that is not JSON), before anything is done.
 */
final class RemoteRequests {
  private RemoteRequests() {}

  /** The most job types one remote worker declares. */
  static final int MAX_TYPES = 100;

  /** The most concurrent attempts one remote worker declares. */
  static final int MAX_CONCURRENCY = 1000;

  /** The most log lines one heartbeat carries per attempt. */
  static final int MAX_LINES_PER_BEAT = 100;

  static final Set<String> REGISTRATION_FIELDS = Set.of("types", "concurrency");
  static final Set<String> CLAIM_FIELDS = Set.of("max", "waitMs");
  static final Set<String> HEARTBEAT_FIELDS = Set.of("attempts");
  static final Set<String> BEAT_FIELDS = Set.of("jobId", "attempt", "progress", "logs");
  static final Set<String> PROGRESS_FIELDS = Set.of("percent", "done", "total");
  static final Set<String> COMPLETION_FIELDS =
      Set.of(
          "jobId",
          "attempt",
          "status",
          "result",
          "followUps",
          "error",
          "retryable",
          "retryAfterMs");

  /** A follow-up's fields: those of a job a Java handler spawns ({@code FollowUp}). */
  static final Set<String> FOLLOW_UP_FIELDS =
      Set.of(
          "type",
          "payload",
          "delay",
          "runAt",
          "priority",
          "maxAttempts",
          "backoff",
          "timeout",
          "idempotencyKey",
          "tags");

  /** The most follow-ups one completion asks for (as many as one batch submit holds). */
  static final int MAX_FOLLOW_UPS = 1000;

  /** {@code {"types": [..], "concurrency": n}}. */
  record Registration(List<String> types, int concurrency) {}

  /** {@code {"max": n, "waitMs": n}}. */
  record Claim(int max, Duration waitFor) {}

  /** One attempt of a heartbeat: its progress (null: none) and new log lines. */
  record Beat(UUID jobId, int attempt, Progress progress, List<String> lines) {}

  /**
   * {@code {"jobId", "attempt", "status", "result", "followUps" | "error", "retryable",
   * "retryAfterMs"}}.
   */
  record Completion(UUID jobId, int attempt, RemoteResult result) {}

  static Registration registration(JsonNode body) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(REGISTRATION_FIELDS);
    List<String> types = new ArrayList<>();
    JsonNode node = f.get("types");
    if (!(node instanceof ArrayNode array) || array.isEmpty() || array.size() > MAX_TYPES) {
      f.error("types", "must be an array of 1 to " + MAX_TYPES + " job types");
    } else {
      Set<String> seen = new LinkedHashSet<>();
      for (int i = 0; i < array.size(); i++) {
        JsonNode t = array.get(i);
        if (!t.isTextual()
            || t.asText().isBlank()
            || t.asText().length() > JobFields.MAX_TYPE_LENGTH) {
          f.error(
              "types[" + i + "]",
              "must be a job type of 1 to " + JobFields.MAX_TYPE_LENGTH + " characters");
        } else if (!seen.add(t.asText())) {
          f.error("types[" + i + "]", "is declared twice");
        }
      }
      types.addAll(seen);
    }
    Integer concurrency = f.integer("concurrency", 1, MAX_CONCURRENCY);
    violations.throwIfAny();
    return new Registration(List.copyOf(types), concurrency == null ? 1 : concurrency);
  }

  static Claim claim(JsonNode body, int concurrency, Duration maxWait) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(CLAIM_FIELDS);
    Integer max = f.integer("max", 1, concurrency);
    Integer waitMs = f.integer("waitMs", 0, (int) maxWait.toMillis());
    violations.throwIfAny();
    return new Claim(max == null ? 1 : max, Duration.ofMillis(waitMs == null ? 0 : waitMs));
  }

  static List<Beat> heartbeat(JsonNode body, int concurrency) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(HEARTBEAT_FIELDS);
    List<Beat> beats = new ArrayList<>();
    JsonNode node = f.get("attempts");
    if (node != null && (!(node instanceof ArrayNode array) || array.size() > concurrency)) {
      f.error(
          "attempts", "must be an array of at most " + concurrency + " attempts (its concurrency)");
    } else if (node != null) {
      for (int i = 0; i < node.size(); i++) {
        String at = "attempts[" + i + "]";
        if (!(node.get(i) instanceof ObjectNode item)) {
          f.error(at, "must be an object");
          continue;
        }
        Fields a = new Fields(item, at + ".", violations);
        a.rejectUnknown(BEAT_FIELDS);
        UUID jobId = jobId(a);
        Integer attempt = a.integer("attempt", 1, 10_000);
        if (attempt == null && !a.has("attempt")) {
          a.error("attempt", "is required");
        }
        Progress progress = progress(a, item.get("progress"), at);
        List<String> lines = lines(a, item.get("logs"));
        if (jobId != null && attempt != null) {
          beats.add(new Beat(jobId, attempt, progress, lines));
        }
      }
    }
    violations.throwIfAny();
    return beats;
  }

  static Completion completion(JsonNode body, JobFields jobFields) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(COMPLETION_FIELDS);
    UUID jobId = jobId(f);
    Integer attempt = f.integer("attempt", 1, 10_000);
    if (attempt == null && !f.has("attempt")) {
      f.error("attempt", "is required");
    }
    String status = f.string("status", true, 20);
    RemoteResult result = null;
    if ("succeeded".equals(status)) {
      for (String other : List.of("error", "retryable", "retryAfterMs")) {
        if (f.has(other)) {
          f.error(other, "is for a failed attempt");
        }
      }
      JsonNode value = object.get("result");
      result =
          new RemoteResult.Succeeded(
              value == null || value.isNull() ? null : value, followUps(f, jobFields));
    } else if ("failed".equals(status)) {
      for (String other : List.of("result", "followUps")) {
        if (f.has(other)) {
          f.error(other, "is for a succeeded attempt");
        }
      }
      String error = f.string("error", true, 10_000);
      JsonNode retryable = f.get("retryable");
      if (retryable != null && !retryable.isBoolean()) {
        f.error("retryable", "must be true or false");
      }
      Integer retryAfterMs = f.integer("retryAfterMs", 0, 24 * 3_600_000);
      result =
          new RemoteResult.Failed(
              error,
              retryable == null || retryable.asBoolean(),
              retryAfterMs == null ? null : Duration.ofMillis(retryAfterMs));
    } else if (status != null) {
      f.error("status", "must be succeeded or failed");
    }
    violations.throwIfAny();
    return new Completion(jobId, attempt, result);
  }

  /**
   * {@code followUps}: jobs stored with the attempt's success as its children, each validated as a
   * submitted job's fields; no two with one idempotency key.
   */
  private static List<FollowUp> followUps(Fields f, JobFields jobFields) {
    JsonNode list = f.get("followUps");
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      f.error("followUps", "must be an array of jobs");
      return List.of();
    }
    if (list.size() > MAX_FOLLOW_UPS) {
      f.error("followUps", "must have at most " + MAX_FOLLOW_UPS + " entries");
      return List.of();
    }
    List<FollowUp> out = new ArrayList<>(list.size());
    Set<String> keys = new java.util.HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String path = f.path("followUps[" + i + "]");
      if (!(list.get(i) instanceof ObjectNode item)) {
        f.violations().add(path, "must be a JSON object describing a job");
        continue;
      }
      Fields g = new Fields(item, path + ".", f.violations());
      int before = g.errorCount();
      g.rejectUnknown(FOLLOW_UP_FIELDS);
      String type = jobFields.type(g);
      JsonNode payload = jobFields.payload(g);
      JobFields.Due due = jobFields.due(g);
      Priority priority = g.has("priority") ? jobFields.priority(g) : null;
      Integer maxAttempts = g.has("maxAttempts") ? jobFields.maxAttempts(g) : null;
      Backoff backoff = g.has("backoff") ? jobFields.backoff(g) : null;
      Duration timeout = jobFields.timeout(g);
      String key = g.string("idempotencyKey", false, JobRequestParser.MAX_KEY_LENGTH);
      if (key != null && !keys.add(key)) {
        g.error("idempotencyKey", "repeats that of an earlier follow-up");
      }
      List<String> tags = jobFields.tags(g);
      if (g.errorCount() > before) {
        continue;
      }
      FollowUp followUp = FollowUp.of(type).payload(payload).tags(tags.toArray(String[]::new));
      if (due.runAt() != null) {
        followUp.runAt(due.runAt());
      }
      if (due.delay() != null) {
        followUp.delay(due.delay());
      }
      if (priority != null) {
        followUp.priority(priority);
      }
      if (maxAttempts != null) {
        followUp.maxAttempts(maxAttempts);
      }
      if (backoff != null) {
        followUp.backoff(backoff);
      }
      if (timeout != null) {
        followUp.timeout(timeout);
      }
      if (key != null) {
        followUp.idempotencyKey(key);
      }
      out.add(followUp);
    }
    return out;
  }

  private static UUID jobId(Fields f) {
    String text = f.string("jobId", true, 36);
    if (text == null) {
      return null;
    }
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      f.error("jobId", "must be a job id");
      return null;
    }
  }

  private static Progress progress(Fields a, JsonNode node, String at) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!(node instanceof ObjectNode p)) {
      a.error("progress", "must be {\"percent\": 0-100} or {\"done\": n, \"total\": n}");
      return null;
    }
    Fields pf = new Fields(p, at + ".progress.", a.violations());
    pf.rejectUnknown(PROGRESS_FIELDS);
    if (pf.has("done") || pf.has("total")) {
      JsonNode done = p.get("done");
      JsonNode total = p.get("total");
      if (done == null
          || total == null
          || !done.canConvertToLong()
          || !total.canConvertToLong()
          || !done.isIntegralNumber()
          || !total.isIntegralNumber()
          || done.asLong() < 0
          || total.asLong() <= 0
          || done.asLong() > total.asLong()) {
        pf.error("done", "done and total must be integers, 0 <= done <= total, total > 0");
        return null;
      }
      return Progress.of(done.asLong(), total.asLong());
    }
    Double percent = pf.number("percent", 0, 100);
    if (percent == null) {
      if (!pf.has("percent")) {
        pf.error("percent", "is required without done and total");
      }
      return null;
    }
    return Progress.percent(percent);
  }

  private static List<String> lines(Fields a, JsonNode node) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!(node instanceof ArrayNode array) || array.size() > MAX_LINES_PER_BEAT) {
      a.error("logs", "must be an array of at most " + MAX_LINES_PER_BEAT + " lines");
      return List.of();
    }
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      if (!array.get(i).isTextual()) {
        a.error("logs[" + i + "]", "must be a string");
      } else {
        lines.add(array.get(i).asText());
      }
    }
    return lines;
  }
}
