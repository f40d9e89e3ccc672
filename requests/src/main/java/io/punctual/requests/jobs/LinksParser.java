package io.punctual.requests.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.model.JobId;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import io.punctual.requests.Fields;
import io.punctual.requests.Violations;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads what a job waits for: its parent ({@code parentId}, or in a workflow {@code parent} by ref)
 * with a {@code runCondition}, and its {@code dependsOn} list ({@code {"id": ...}} or, in a
 * workflow, {@code {"ref": ...}}, each with {@code "required"}, default true; a plain id string is
 * short for a required dependency). Every mistake is recorded under its field's path.
 */
public final class LinksParser {
  /** The fields of a {@code dependsOn} item of a job, and of a workflow step. */
  static final Set<String> DEPENDENCY_FIELDS = Set.of("id", "required");

  static final Set<String> STEP_DEPENDENCY_FIELDS = Set.of("ref", "id", "required");

  static final int MAX_REF_LENGTH = 200;

  private LinksParser() {}

  /** A job to wait for: a stored job ({@code id}) or a step of the same workflow ({@code ref}). */
  public record Target(UUID id, String ref) {
    public String describe() {
      return id != null ? id.toString() : "ref '" + ref + "'";
    }
  }

  /** One entry of {@code dependsOn}, with the path that named it (for later errors). */
  public record Dependency(Target target, boolean required, String path) {}

  /** What one job waits for, validated but not yet resolved to jobs. */
  public record Links(
      Target parent, String parentPath, RunCondition runCondition, List<Dependency> dependsOn) {
    static final Links NONE = new Links(null, null, null, List.of());

    public boolean isEmpty() {
      return parent == null && dependsOn.isEmpty();
    }

    /** The edges of the job; {@code refs} gives the position of each workflow step by ref. */
    public List<Upstream> upstream(Map<String, Integer> refs) {
      List<Upstream> out = new ArrayList<>();
      if (parent != null) {
        out.add(resolve(parent, runCondition, refs).asParent());
      }
      for (Dependency d : dependsOn) {
        out.add(
            resolve(
                d.target(), d.required() ? RunCondition.ON_SUCCESS : RunCondition.ALWAYS, refs));
      }
      return out;
    }

    private static Upstream resolve(Target t, RunCondition c, Map<String, Integer> refs) {
      return t.id() != null ? Upstream.stored(t.id(), c) : Upstream.inBatch(refs.get(t.ref()), c);
    }
  }

  static Links parse(Fields f, boolean inWorkflow, int maxDependencies) {
    Target parent = null;
    String parentPath = null;
    if (f.has("parentId")) {
      parentPath = f.path("parentId");
      UUID id = jobId(f.get("parentId"));
      if (id == null) {
        f.error("parentId", "must be the id of a job");
      } else {
        parent = new Target(id, null);
      }
    }
    if (inWorkflow && f.has("parent")) {
      if (parentPath != null) {
        f.error("parent", "give either parent or parentId, not both");
      } else {
        parentPath = f.path("parent");
        String ref = f.string("parent", false, MAX_REF_LENGTH);
        parent = ref == null ? null : new Target(null, ref);
      }
    }
    RunCondition condition = null;
    if (f.has("runCondition")) {
      JsonNode value = f.get("runCondition");
      condition = value.isTextual() ? RunCondition.parse(value.textValue()).orElse(null) : null;
      if (condition == null) {
        f.error("runCondition", "must be one of on_success, on_failure, always");
      } else if (parentPath == null) {
        f.error(
            "runCondition",
            "applies to a parent: give " + (inWorkflow ? "parent or " : "") + "parentId");
      }
    }
    List<Dependency> dependsOn = dependsOn(f, inWorkflow, maxDependencies);
    if (parent != null) {
      for (Dependency d : dependsOn) {
        if (d.target().equals(parent)) {
          f.violations().add(d.path(), "is already this job's parent");
        }
      }
    }
    if (parent == null && dependsOn.isEmpty()) {
      return Links.NONE;
    }
    return new Links(
        parent, parentPath, condition == null ? RunCondition.ON_SUCCESS : condition, dependsOn);
  }

  private static List<Dependency> dependsOn(Fields f, boolean inWorkflow, int max) {
    JsonNode value = f.get("dependsOn");
    if (value == null) {
      return List.of();
    }
    if (!value.isArray()) {
      f.error("dependsOn", "must be an array of jobs to wait for");
      return List.of();
    }
    if (value.size() > max) {
      f.error("dependsOn", "must have at most " + max + " entries");
      return List.of();
    }
    List<Dependency> out = new ArrayList<>();
    Set<Target> seen = new HashSet<>();
    for (int i = 0; i < value.size(); i++) {
      String path = f.path("dependsOn[" + i + "]");
      Dependency d = dependency(value.get(i), path, inWorkflow, f.violations());
      if (d == null) {
        continue;
      }
      if (!seen.add(d.target())) {
        f.violations().add(path, "names " + d.target().describe() + " twice");
        continue;
      }
      out.add(d);
    }
    return out;
  }

  private static Dependency dependency(
      JsonNode node, String path, boolean inWorkflow, Violations violations) {
    String what =
        inWorkflow
            ? "must be {\"ref\": ...} or {\"id\": ...}, with an optional \"required\""
            : "must be a job id or {\"id\": ..., \"required\": true|false}";
    if (node.isTextual()) {
      UUID id = jobId(node);
      if (id == null) {
        violations.add(path, "must be the id of a job");
        return null;
      }
      return new Dependency(new Target(id, null), true, path);
    }
    if (!(node instanceof ObjectNode object)) {
      violations.add(path, what);
      return null;
    }
    Fields f = new Fields(object, path + ".", violations);
    int before = f.errorCount();
    f.rejectUnknown(inWorkflow ? STEP_DEPENDENCY_FIELDS : DEPENDENCY_FIELDS);
    Target target = null;
    if (f.has("id") && f.has("ref")) {
      f.error("ref", "give either ref or id, not both");
    } else if (f.has("id")) {
      UUID id = jobId(f.get("id"));
      if (id == null) {
        f.error("id", "must be the id of a job");
      } else {
        target = new Target(id, null);
      }
    } else if (inWorkflow && f.has("ref")) {
      String ref = f.string("ref", true, MAX_REF_LENGTH);
      target = ref == null ? null : new Target(null, ref);
    } else {
      violations.add(path, what);
    }
    boolean required = true;
    if (f.has("required")) {
      JsonNode r = f.get("required");
      if (!r.isBoolean()) {
        f.error("required", "must be true or false");
      } else {
        required = r.booleanValue();
      }
    }
    return f.errorCount() > before || target == null
        ? null
        : new Dependency(target, required, path);
  }

  private static UUID jobId(JsonNode value) {
    return value != null && value.isTextual() ? JobId.parse(value.textValue()).orElse(null) : null;
  }
}
