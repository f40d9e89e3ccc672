package io.punctual.requests.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.model.RequestHash;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.Fields;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.StorableText;
import io.punctual.requests.Violations;
import io.punctual.store.WorkflowStore.NewStep;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Validates the body of {@code POST /workflows}: {@code {"idempotencyKey"?, "jobs": [...]}}, each
 * job a step with a unique {@code ref} and every field of a job, waiting for other steps by ref
 * ({@code parent}, {@code dependsOn[].ref}) or for stored jobs by id. Refs must name steps of the
 * workflow and the steps must not wait for each other in a cycle; every mistake is named by its
 * field ({@code jobs[2].dependsOn[0].ref}).
 */
public final class WorkflowRequestParser {
  /** The fields of a workflow's body (each step's are {@code JobRequestParser.STEP_FIELDS}). */
  static final Set<String> FIELDS = Set.of("jobs", "idempotencyKey");

  private final SubmitLimits limits;
  private final JobRequestParser jobs;

  public WorkflowRequestParser(SubmitLimits limits) {
    this.limits = limits;
    this.jobs = new JobRequestParser(limits);
  }

  /** A valid workflow request, ready to be stored. */
  public static final class ValidatedWorkflow {
    private final String idempotencyKey;
    private final List<String> refs;
    private final List<ValidatedJob> steps;
    private final Map<String, Integer> positions;

    private ValidatedWorkflow(
        String idempotencyKey,
        List<String> refs,
        List<ValidatedJob> steps,
        Map<String, Integer> positions) {
      this.idempotencyKey = idempotencyKey;
      this.refs = refs;
      this.steps = steps;
      this.positions = positions;
    }

    public String idempotencyKey() {
      return idempotencyKey;
    }

    /** How many steps (jobs) the workflow has. */
    public int size() {
      return steps.size();
    }

    public ValidatedJob step(int index) {
      return steps.get(index);
    }

    /** Fingerprint of the whole graph, to tell a repeated submission from a different one. */
    public String requestHash() {
      ArrayNode all = JsonNodeFactory.instance.arrayNode();
      for (int i = 0; i < steps.size(); i++) {
        ObjectNode step = steps.get(i).canonical();
        step.put("ref", refs.get(i));
        all.add(step);
      }
      return RequestHash.sha256(all);
    }

    /** This workflow with every step carrying the request's {@code traceparent} header. */
    public ValidatedWorkflow withTraceparent(String traceparent) {
      if (traceparent == null) {
        return this;
      }
      List<ValidatedJob> traced = steps.stream().map(s -> s.withTraceparent(traceparent)).toList();
      return new ValidatedWorkflow(idempotencyKey, refs, traced, positions);
    }

    /** The steps to store in {@code namespace}, delays counted from {@code now}. */
    public List<NewStep> toSteps(String namespace, Instant now) {
      List<NewStep> out = new ArrayList<>(steps.size());
      for (int i = 0; i < steps.size(); i++) {
        out.add(new NewStep(refs.get(i), steps.get(i).toNewJob(namespace, now, positions)));
      }
      return out;
    }
  }

  public ValidatedWorkflow parse(JsonNode body) {
    if (body == null || body.isMissingNode() || body.isNull()) {
      throw new InvalidFieldsException(
          "jobs", "the body must be {\"jobs\": [...]}, a non-empty array of jobs");
    }
    if (!(body instanceof ObjectNode object)) {
      throw new InvalidFieldsException(null, "the body must be a JSON object");
    }
    StorableText.require(object, "");
    Violations violations = new Violations();
    Fields top = new Fields(object, "", violations);
    top.rejectUnknown(FIELDS);
    String key = top.string("idempotencyKey", false, JobRequestParser.MAX_KEY_LENGTH);
    JsonNode list = object.get("jobs");
    if (list == null || !list.isArray() || list.isEmpty()) {
      violations.add("jobs", "must be a non-empty array of jobs");
      violations.throwIfAny();
    }
    if (list.size() > limits.maxWorkflowJobs()) {
      throw new FieldTooLargeException(
          "jobs",
          "A workflow holds at most " + limits.maxWorkflowJobs() + " jobs, not " + list.size());
    }
    List<String> refs = new ArrayList<>(list.size());
    Map<String, Integer> positions = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      refs.add(ref(list.get(i), i, positions, violations));
    }
    List<ValidatedJob> steps = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      steps.add(jobs.parse(list.get(i), "jobs[" + i + "].", violations, true));
    }
    violations.throwIfAny();
    checkRefs(steps, refs, positions, violations);
    violations.throwIfAny();
    checkAcyclic(steps, refs, positions, violations);
    violations.throwIfAny();
    return new ValidatedWorkflow(key, refs, steps, positions);
  }

  private static String ref(
      JsonNode step, int i, Map<String, Integer> positions, Violations violations) {
    if (!(step instanceof ObjectNode object)) {
      return null;
    }
    Fields f = new Fields(object, "jobs[" + i + "].", violations);
    String ref = f.string("ref", true, LinksParser.MAX_REF_LENGTH);
    if (ref != null && positions.putIfAbsent(ref, i) != null) {
      f.error("ref", "'" + ref + "' is already the ref of jobs[" + positions.get(ref) + "]");
    }
    return ref;
  }

  /** Every ref a step waits for names another step of the workflow. */
  private static void checkRefs(
      List<ValidatedJob> steps,
      List<String> refs,
      Map<String, Integer> positions,
      Violations violations) {
    for (int i = 0; i < steps.size(); i++) {
      LinksParser.Links links = steps.get(i).links();
      if (links.parent() != null && links.parent().ref() != null) {
        check(links.parent().ref(), links.parentPath(), refs.get(i), positions, violations);
      }
      for (LinksParser.Dependency d : links.dependsOn()) {
        if (d.target().ref() != null) {
          check(d.target().ref(), d.path() + ".ref", refs.get(i), positions, violations);
        }
      }
    }
  }

  private static void check(
      String ref, String path, String own, Map<String, Integer> positions, Violations violations) {
    if (ref.equals(own)) {
      violations.add(path, "a job cannot wait for itself");
    } else if (!positions.containsKey(ref)) {
      violations.add(path, "no job with ref '" + ref + "' in this workflow");
    }
  }

  /**
   * The steps must not wait for each other in a cycle: takes away steps that wait for nothing left
   * (Kahn); whatever remains is on or behind a cycle, which is traced and reported on the field of
   * one of its edges.
   */
  private static void checkAcyclic(
      List<ValidatedJob> steps,
      List<String> refs,
      Map<String, Integer> positions,
      Violations violations) {
    int n = steps.size();
    List<List<Integer>> waitsFor = new ArrayList<>(n);
    List<List<String>> paths = new ArrayList<>(n);
    int[] open = new int[n];
    List<List<Integer>> waitedForBy = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      waitsFor.add(new ArrayList<>());
      paths.add(new ArrayList<>());
      waitedForBy.add(new ArrayList<>());
    }
    for (int i = 0; i < n; i++) {
      LinksParser.Links links = steps.get(i).links();
      if (links.parent() != null && links.parent().ref() != null) {
        edge(i, positions.get(links.parent().ref()), links.parentPath(), waitsFor, paths);
      }
      for (LinksParser.Dependency d : links.dependsOn()) {
        if (d.target().ref() != null) {
          edge(i, positions.get(d.target().ref()), d.path() + ".ref", waitsFor, paths);
        }
      }
      open[i] = waitsFor.get(i).size();
      for (int j : waitsFor.get(i)) {
        waitedForBy.get(j).add(i);
      }
    }
    Deque<Integer> ready = new ArrayDeque<>();
    for (int i = 0; i < n; i++) {
      if (open[i] == 0) {
        ready.add(i);
      }
    }
    boolean[] done = new boolean[n];
    while (!ready.isEmpty()) {
      int j = ready.poll();
      done[j] = true;
      for (int i : waitedForBy.get(j)) {
        if (--open[i] == 0) {
          ready.add(i);
        }
      }
    }
    for (int start = 0; start < n; start++) {
      if (!done[start]) {
        reportCycle(start, done, waitsFor, paths, refs, violations);
        return;
      }
    }
  }

  private static void edge(
      int from, int to, String path, List<List<Integer>> waitsFor, List<List<String>> paths) {
    waitsFor.get(from).add(to);
    paths.get(from).add(path);
  }

  /** Walks unfinished edges from {@code start} until a step repeats: that loop is a cycle. */
  private static void reportCycle(
      int start,
      boolean[] done,
      List<List<Integer>> waitsFor,
      List<List<String>> paths,
      List<String> refs,
      Violations violations) {
    List<Integer> walk = new ArrayList<>();
    List<String> walkPaths = new ArrayList<>();
    int at = start;
    while (!walk.contains(at)) {
      walk.add(at);
      int k = 0;
      while (done[waitsFor.get(at).get(k)]) {
        k++;
      }
      walkPaths.add(paths.get(at).get(k));
      at = waitsFor.get(at).get(k);
    }
    List<String> loop = new ArrayList<>();
    for (int i = walk.indexOf(at); i < walk.size(); i++) {
      loop.add(refs.get(walk.get(i)));
    }
    loop.add(refs.get(at));
    violations.add(
        walkPaths.get(walk.indexOf(at)),
        "the jobs " + String.join(" -> ", loop) + " wait for each other in a cycle");
  }
}
