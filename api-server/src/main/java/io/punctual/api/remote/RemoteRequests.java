package io.punctual.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.problem.Problems;
import io.punctual.model.Progress;
import io.punctual.requests.Fields;
import io.punctual.requests.JobFields;
import io.punctual.requests.Violations;
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
      Set.of("jobId", "attempt", "status", "result", "error", "retryable", "retryAfterMs");

  /** {@code {"types": [..], "concurrency": n}}. */
  record Registration(List<String> types, int concurrency) {}

  /** {@code {"max": n, "waitMs": n}}. */
  record Claim(int max, Duration waitFor) {}

  /** One attempt of a heartbeat: its progress (null: none) and new log lines. */
  record Beat(UUID jobId, int attempt, Progress progress, List<String> lines) {}

  /** {@code {"jobId", "attempt", "status", "result" | "error", "retryable", "retryAfterMs"}}. */
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

  static Completion completion(JsonNode body) {
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
      result = new RemoteResult.Succeeded(value == null || value.isNull() ? null : value);
    } else if ("failed".equals(status)) {
      if (f.has("result")) {
        f.error("result", "is for a succeeded attempt");
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
