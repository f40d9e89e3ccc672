package io.punctual.api.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code /api/v1/workflows} and the dependency fields of {@code /api/v1/jobs}, over HTTP against
 * real PostgreSQL and Redis: a graph stored in one call, its steps BLOCKED outside Redis until what
 * they wait for ends, bad graphs refused naming the field, cancel, idempotent repeats.
 */
class WorkflowsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  /** The seeds' monthly report: two extracts, a compile when both succeed, an alert on failure. */
  private static final String MONTHLY_REPORT =
      """
      {"jobs":[
        {"ref":"extract-a","type":"noop"},
        {"ref":"extract-b","type":"noop","priority":"high"},
        {"ref":"compile","type":"noop","dependsOn":[{"ref":"extract-a"},{"ref":"extract-b"}]},
        {"ref":"alert","type":"noop","parent":"compile","runCondition":"on_failure"},
        {"ref":"archive","type":"noop","dependsOn":[{"ref":"compile","required":false}]}
      ]}
      """;

  private static Map<String, JsonNode> byRef(JsonNode workflow) {
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode step : workflow.get("jobs")) {
      out.put(step.get("ref").asText(), step);
    }
    return out;
  }

  private static List<String> queued() {
    List<String> out = new java.util.ArrayList<>();
    for (Priority p : Priority.values()) {
      out.addAll(FIXTURE.stack.redis.sync().zrange(FIXTURE.stack.keys.queue("default", p), 0, -1));
    }
    return out;
  }

  /** Runs a job to its end through the store, as a worker would. */
  private static void end(String id, JobState end) {
    UUID jobId = UUID.fromString(id);
    assertThat(FIXTURE.stores.transitions().claim(List.of(jobId), "w")).hasSize(1);
    FIXTURE
        .stores
        .transitions()
        .finish(
            List.of(
                new Completion(
                    jobId,
                    1,
                    end,
                    null,
                    end == JobState.SUCCEEDED ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED,
                    FIXTURE.clock.instant(),
                    1,
                    end == JobState.SUCCEEDED ? null : "boom",
                    null,
                    null,
                    List.of())));
  }

  @Test
  void aWorkflowIsStoredInOneCallWithItsWaitingStepsBlockedOutsideRedis() {
    Reply reply = FIXTURE.http().post("/api/v1/workflows", MONTHLY_REPORT);

    assertThat(reply.status()).isEqualTo(201);
    JsonNode workflow = reply.json();
    assertThat(reply.header("Location"))
        .hasValueSatisfying(l -> l.endsWith(workflow.get("id").asText()));
    assertThat(workflow.get("status").asText()).isEqualTo("RUNNING");
    Map<String, JsonNode> steps = byRef(workflow);
    assertThat(workflow.get("jobs"))
        .extracting(s -> s.get("ref").asText())
        .containsExactly("extract-a", "extract-b", "compile", "alert", "archive");
    assertThat(steps.get("extract-a").get("status").asText()).isEqualTo("PENDING");
    assertThat(steps.get("compile").get("status").asText()).isEqualTo("BLOCKED");
    assertThat(steps.get("alert").get("parentId").asText())
        .isEqualTo(steps.get("compile").get("id").asText());
    assertThat(steps.get("alert").get("runCondition").asText()).isEqualTo("on_failure");
    assertThat(queued())
        .contains(
            steps.get("extract-a").get("id").asText(), steps.get("extract-b").get("id").asText())
        .doesNotContain(steps.get("compile").get("id").asText());

    Reply job = FIXTURE.http().get("/api/v1/jobs/" + steps.get("compile").get("id").asText());
    assertThat(job.json().get("workflowId").asText()).isEqualTo(workflow.get("id").asText());
    assertThat(job.json().get("status").asText()).isEqualTo("BLOCKED");
  }

  @Test
  void everyStepKeepsTheSubmitsTraceparent() {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Reply reply =
        FIXTURE
            .http()
            .send(
                FIXTURE
                    .http()
                    .request("/api/v1/workflows")
                    .header("Content-Type", "application/json")
                    .header("traceparent", traceparent)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(MONTHLY_REPORT)));

    assertThat(reply.status()).isEqualTo(201);
    for (JsonNode step : reply.json().get("jobs")) {
      Reply job = FIXTURE.http().get("/api/v1/jobs/" + step.get("id").asText());
      assertThat(job.json().get("traceparent").asText()).isEqualTo(traceparent);
    }
  }

  @Test
  void stepsMoveOnAsWhatTheyWaitForEnds() {
    JsonNode workflow = FIXTURE.http().post("/api/v1/workflows", MONTHLY_REPORT).json();
    Map<String, JsonNode> steps = byRef(workflow);
    String id = workflow.get("id").asText();

    end(steps.get("extract-a").get("id").asText(), JobState.SUCCEEDED);
    end(steps.get("extract-b").get("id").asText(), JobState.SUCCEEDED);
    end(steps.get("compile").get("id").asText(), JobState.SUCCEEDED);

    Map<String, JsonNode> now = byRef(FIXTURE.http().get("/api/v1/workflows/" + id).json());
    assertThat(now.get("alert").get("status").asText()).isEqualTo("SKIPPED");
    assertThat(now.get("alert").get("lastError").asText()).contains("on_failure");
    assertThat(now.get("archive").get("status").asText()).isEqualTo("PENDING");

    end(now.get("archive").get("id").asText(), JobState.SUCCEEDED);
    JsonNode done = FIXTURE.http().get("/api/v1/workflows/" + id).json();
    assertThat(done.get("status").asText()).isEqualTo("SUCCEEDED");
  }

  @Test
  void cancellingAWorkflowCancelsItsUnfinishedStepsAndTakesThemOutOfRedis() {
    JsonNode workflow = FIXTURE.http().post("/api/v1/workflows", MONTHLY_REPORT).json();
    Map<String, JsonNode> steps = byRef(workflow);
    end(steps.get("extract-a").get("id").asText(), JobState.SUCCEEDED);

    Reply reply =
        FIXTURE.http().post("/api/v1/workflows/" + workflow.get("id").asText() + "/cancel", "");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("CANCELLED");
    Map<String, JsonNode> after = byRef(reply.json());
    assertThat(after.get("extract-a").get("status").asText()).isEqualTo("SUCCEEDED");
    for (String ref : List.of("extract-b", "compile", "alert", "archive")) {
      assertThat(after.get(ref).get("status").asText()).as(ref).isEqualTo("CANCELLED");
    }
    assertThat(queued()).doesNotContain(steps.get("extract-b").get("id").asText());

    // Every step is final now: a second cancel is refused as for a final job, and changes nothing.
    Reply again =
        FIXTURE.http().post("/api/v1/workflows/" + workflow.get("id").asText() + "/cancel", "");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.contentType()).startsWith("application/problem+json");
    assertThat(again.json().get("type").asText()).endsWith("/workflow-final");
    assertThat(again.json().get("detail").asText()).contains("CANCELLED");
    JsonNode now = FIXTURE.http().get("/api/v1/workflows/" + workflow.get("id").asText()).json();
    assertThat(now.get("status").asText()).isEqualTo("CANCELLED");
    assertThat(byRef(now).get("extract-a").get("status").asText()).isEqualTo("SUCCEEDED");
  }

  @Test
  void cancellingAWorkflowWhoseStepsAllEndedIsAConflictAndLeavesItAsItWas() {
    String body =
        "{\"jobs\":[{\"ref\":\"a\",\"type\":\"noop\"},"
            + "{\"ref\":\"b\",\"type\":\"noop\",\"dependsOn\":[{\"ref\":\"a\"}]}]}";
    JsonNode workflow = FIXTURE.http().post("/api/v1/workflows", body).json();
    String id = workflow.get("id").asText();
    end(byRef(workflow).get("a").get("id").asText(), JobState.SUCCEEDED);
    end(
        byRef(FIXTURE.http().get("/api/v1/workflows/" + id).json()).get("b").get("id").asText(),
        JobState.SUCCEEDED);

    Reply reply = FIXTURE.http().post("/api/v1/workflows/" + id + "/cancel", "");

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("type").asText()).endsWith("/workflow-final");
    assertThat(reply.json().get("detail").asText()).contains(id).contains("SUCCEEDED");
    JsonNode after = FIXTURE.http().get("/api/v1/workflows/" + id).json();
    assertThat(after.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(after.get("cancelledAt").isNull()).isTrue();
  }

  @Test
  void aRepeatedSubmissionWithTheSameKeyReturnsTheStoredWorkflow() {
    String body =
        "{\"idempotencyKey\":\"report-2026-11\",\"jobs\":[{\"ref\":\"a\",\"type\":\"noop\"},"
            + "{\"ref\":\"b\",\"type\":\"noop\",\"dependsOn\":[{\"ref\":\"a\"}]}]}";
    Reply first = FIXTURE.http().post("/api/v1/workflows", body);
    Reply again = FIXTURE.http().post("/api/v1/workflows", body);
    Reply different =
        FIXTURE
            .http()
            .post(
                "/api/v1/workflows",
                body.replace(
                    "\"ref\":\"b\",\"type\":\"noop\"", "\"ref\":\"b\",\"type\":\"other\""));

    assertThat(first.status()).isEqualTo(201);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().get("id").asText()).isEqualTo(first.json().get("id").asText());
    assertThat(different.status()).isEqualTo(409);
    assertThat(different.json().get("field").asText()).isEqualTo("idempotencyKey");
  }

  @Test
  void aJobCanWaitForStoredJobsDirectly() {
    String parent =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}").json().get("id").asText();
    String other =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}").json().get("id").asText();

    Reply child =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"noop\",\"parentId\":\""
                    + parent
                    + "\",\"runCondition\":\"always\",\"dependsOn\":[\""
                    + other
                    + "\"]}");

    assertThat(child.status()).isEqualTo(201);
    assertThat(child.json().get("status").asText()).isEqualTo("BLOCKED");
    assertThat(child.json().get("parentId").asText()).isEqualTo(parent);
    String childId = child.json().get("id").asText();
    assertThat(queued()).doesNotContain(childId);
    end(parent, JobState.FAILED);
    end(other, JobState.SUCCEEDED);
    assertThat(FIXTURE.http().get("/api/v1/jobs/" + childId).json().get("status").asText())
        .isEqualTo("PENDING");
  }

  @Test
  void cancellingAJobReleasesAnOptionalDependentIntoRedis() {
    String first =
        FIXTURE
            .http()
            .post("/api/v1/jobs", "{\"type\":\"noop\",\"delay\":\"PT1H\"}")
            .json()
            .get("id")
            .asText();
    String next =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"noop\",\"dependsOn\":[{\"id\":\"" + first + "\",\"required\":false}]}")
            .json()
            .get("id")
            .asText();

    FIXTURE.http().post("/api/v1/jobs/" + first + "/cancel", "");

    assertThat(FIXTURE.http().get("/api/v1/jobs/" + next).json().get("status").asText())
        .isEqualTo("PENDING");
    assertThat(queued()).contains(next);
  }

  static Stream<Arguments> badWorkflows() {
    return Stream.of(
        bad("no jobs", "{'jobs':[]}", "jobs"),
        bad("missing ref", "{'jobs':[{'type':'a'}]}", "jobs[0].ref"),
        bad(
            "duplicate ref",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'a','type':'b'}]}",
            "jobs[1].ref"),
        bad(
            "unknown ref",
            "{'jobs':[{'ref':'a','type':'a','dependsOn':[{'ref':'zz'}]}]}",
            "jobs[0].dependsOn[0].ref"),
        bad("self", "{'jobs':[{'ref':'a','type':'a','parent':'a'}]}", "jobs[0].parent"),
        bad(
            "cycle",
            "{'jobs':[{'ref':'a','type':'a','dependsOn':[{'ref':'c'}]},"
                + "{'ref':'b','type':'a','parent':'a'},{'ref':'c','type':'a','dependsOn':[{'ref':'b'}]}]}",
            "jobs[0].dependsOn[0].ref"),
        bad(
            "bad run condition",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b','type':'a','parent':'a','runCondition':'sometimes'}]}",
            "jobs[1].runCondition"),
        bad(
            "run condition without parent",
            "{'jobs':[{'ref':'a','type':'a','runCondition':'always'}]}",
            "jobs[0].runCondition"),
        bad(
            "required not boolean",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b','type':'a','dependsOn':[{'ref':'a','required':'yes'}]}]}",
            "jobs[1].dependsOn[0].required"),
        bad(
            "step idempotency key",
            "{'jobs':[{'ref':'a','type':'a','idempotencyKey':'k'}]}",
            "jobs[0].idempotencyKey"),
        bad(
            "parent also a dependency",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b','type':'a','parent':'a','dependsOn':[{'ref':'a'}]}]}",
            "jobs[1].dependsOn[0]"),
        bad(
            "unknown stored job",
            "{'jobs':[{'ref':'a','type':'a','dependsOn':[{'id':'01a20789-30fb-757f-aa8b-37dcc072ee45'}]}]}",
            "jobs[0].dependsOn[0]"),
        bad("unknown field", "{'jobs':[{'ref':'a','type':'a'}],'name':'x'}", "name"),
        bad(
            "NUL in a ref",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b\\u0000','type':'a'}]}",
            "jobs[1].ref"),
        bad("lone surrogate in a ref", "{'jobs':[{'ref':'\\ud800','type':'a'}]}", "jobs[0].ref"),
        bad(
            "NUL in a parent ref",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b','type':'a','parent':'a\\u0000'}]}",
            "jobs[1].parent"),
        bad(
            "lone surrogate in a dependsOn ref",
            "{'jobs':[{'ref':'a','type':'a'},{'ref':'b','type':'a','dependsOn':[{'ref':'a\\udc00'}]}]}",
            "jobs[1].dependsOn[0].ref"),
        bad("NUL in a step's type", "{'jobs':[{'ref':'a','type':'a\\u0000'}]}", "jobs[0].type"),
        bad(
            "NUL in a step's payload",
            "{'jobs':[{'ref':'a','type':'a','payload':{'x':['\\u0000']}}]}",
            "jobs[0].payload.x[0]"),
        bad(
            "NUL in the workflow's idempotencyKey",
            "{'idempotencyKey':'k\\u0000','jobs':[{'ref':'a','type':'a'}]}",
            "idempotencyKey"));
  }

  private static Arguments bad(String name, String body, String field) {
    return Arguments.of(name, body.replace('\'', '"'), field);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badWorkflows")
  void aBadWorkflowIsRefusedNamingTheFieldAndNothingIsStored(
      String name, String body, String field) {
    long before = countJobs();

    Reply reply = FIXTURE.http().post("/api/v1/workflows", body);

    assertThat(reply.status()).as(reply.json().toString()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("errors")).extracting(e -> e.get("field").asText()).contains(field);
    assertThat(countJobs()).isEqualTo(before);
  }

  @Test
  void aCycleIsDescribedStepByStep() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/workflows",
                "{\"jobs\":[{\"ref\":\"a\",\"type\":\"x\",\"parent\":\"b\"},"
                    + "{\"ref\":\"b\",\"type\":\"x\",\"dependsOn\":[{\"ref\":\"a\"}]}]}");

    assertThat(reply.json().get("errors").get(0).get("message").asText())
        .isEqualTo("the jobs a -> b -> a wait for each other in a cycle");
  }

  @Test
  void aJobNamingAStoredJobOfAnotherNamespaceIsRefused() {
    String elsewhere =
        FIXTURE
            .http()
            .namespace("billing")
            .post("/api/v1/jobs", "{\"type\":\"noop\"}")
            .json()
            .get("id")
            .asText();

    Reply reply =
        FIXTURE
            .http()
            .post("/api/v1/jobs", "{\"type\":\"noop\",\"parentId\":\"" + elsewhere + "\"}");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("parentId");
    assertThat(reply.json().get("detail").asText()).contains(elsewhere);
  }

  @Test
  void anUnknownWorkflowIs404() {
    assertThat(FIXTURE.http().get("/api/v1/workflows/" + UUID.randomUUID()).status())
        .isEqualTo(404);
    assertThat(FIXTURE.http().get("/api/v1/workflows/not-an-id").status()).isEqualTo(404);
  }

  private static long countJobs() {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Long.class).one());
  }
}
