package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /api/v1/jobs/{id}/children}: every job whose parent is the job, however it got there
 * (submitted with {@code parentId}, spawned by the parent's handler as a follow-up, a workflow
 * step), paged by keyset, and only in the job's namespace.
 */
class JobChildrenIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  final Jobs jobs = new Jobs(FIXTURE);

  @Test
  void listsSubmittedAndSpawnedChildrenPageByPage() {
    HttpSupport http = FIXTURE.http().namespace("children");
    String parent = jobs.submit(http, "{\"type\":\"parent\"}");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      expected.add(
          jobs.submit(
              http,
              "{\"type\":\"child\",\"parentId\":\"" + parent + "\",\"runCondition\":\"always\"}"));
    }
    String unrelated = jobs.submit(http, "{\"type\":\"child\"}");
    // the parent's handler spawns a follow-up: stored as its child when the attempt succeeds
    int attempt = jobs.claim(parent);
    NewJob followUp = NewJob.builder("children", "spawned", FIXTURE.clock.instant()).build();
    Completion done =
        new Completion(
            UUID.fromString(parent),
            attempt,
            JobState.SUCCEEDED,
            null,
            ExecutionStatus.SUCCEEDED,
            FIXTURE.clock.instant(),
            3,
            null,
            null,
            null,
            List.of(followUp));
    assertThat(FIXTURE.stack.transitions.finish(List.of(done)).applied()).hasSize(1);
    JsonNode all = http.get("/api/v1/jobs/" + parent + "/children").json();
    assertThat(all.get("items")).hasSize(3);
    String spawned = null;
    for (JsonNode child : all.get("items")) {
      assertThat(child.get("parentId").asText()).isEqualTo(parent);
      if (child.get("type").asText().equals("spawned")) {
        spawned = child.get("id").asText();
      }
    }
    assertThat(spawned).isNotNull();
    expected.add(spawned);
    // a grandchild is its own parent's child, not this job's
    jobs.submit(http, "{\"type\":\"grandchild\",\"parentId\":\"" + spawned + "\"}");

    Reply first = http.get("/api/v1/jobs/" + parent + "/children?limit=2");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().get("items")).hasSize(2);
    String cursor = first.json().get("nextCursor").asText();
    Reply second = http.get("/api/v1/jobs/" + parent + "/children?limit=2&cursor=" + cursor);
    assertThat(second.json().get("items")).hasSize(1);
    assertThat(second.json().get("nextCursor").isNull()).isTrue();
    List<String> listed = new ArrayList<>();
    first.json().get("items").forEach(j -> listed.add(j.get("id").asText()));
    second.json().get("items").forEach(j -> listed.add(j.get("id").asText()));
    // oldest scheduled first: the order of the ids
    assertThat(listed).isSortedAccordingTo(java.util.Comparator.comparing(UUID::fromString));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(expected).doesNotContain(unrelated);

    Reply none = http.get("/api/v1/jobs/" + unrelated + "/children");
    assertThat(none.status()).isEqualTo(200);
    assertThat(none.json().get("items")).isEmpty();
    assertThat(none.json().get("nextCursor").isNull()).isTrue();
  }

  @Test
  void workflowStepsAreTheirParentStepsChildren() {
    HttpSupport http = FIXTURE.http().namespace("children-wf");
    Reply workflow =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"compile\",\"type\":\"noop\"},"
                + "{\"ref\":\"alert\",\"type\":\"noop\",\"parent\":\"compile\","
                + "\"runCondition\":\"on_failure\"},"
                + "{\"ref\":\"archive\",\"type\":\"noop\",\"dependsOn\":[{\"ref\":\"compile\"}]}]}");
    assertThat(workflow.status()).as(workflow.raw().body()).isEqualTo(201);
    String compile = null;
    String alert = null;
    for (JsonNode step : workflow.json().get("jobs")) {
      if (step.get("ref").asText().equals("compile")) {
        compile = step.get("id").asText();
      } else if (step.get("ref").asText().equals("alert")) {
        alert = step.get("id").asText();
      }
    }
    JsonNode children = http.get("/api/v1/jobs/" + compile + "/children").json().get("items");
    // a dependent (archive) waits for compile but is not its child
    assertThat(children).hasSize(1);
    assertThat(children.get(0).get("id").asText()).isEqualTo(alert);
  }

  @Test
  void anotherNamespacesKeyGets404AndBadParametersA400NamingThem() {
    HttpSupport mine = FIXTURE.http().namespace("children-mine");
    String parent = jobs.submit(mine, "{\"type\":\"parent\",\"delay\":\"PT1H\"}");
    jobs.submit(mine, "{\"type\":\"child\",\"parentId\":\"" + parent + "\"}");
    Reply key =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"children other\",\"role\":\"operator\",\"namespaces\":[\"children-theirs\"]}");
    assertThat(key.status()).as(key.raw().body()).isEqualTo(201);
    HttpSupport theirs = FIXTURE.http().key(key.json().get("secret").asText());

    Reply hidden = theirs.get("/api/v1/jobs/" + parent + "/children");
    assertThat(hidden.status()).isEqualTo(404);
    assertThat(hidden.contentType()).startsWith("application/problem+json");
    assertThat(
            theirs.namespace("children-mine").get("/api/v1/jobs/" + parent + "/children").status())
        .isEqualTo(403);
    assertThat(mine.get("/api/v1/jobs/" + UUID.randomUUID() + "/children").status()).isEqualTo(404);
    assertThat(mine.get("/api/v1/jobs/nope/children").status()).isEqualTo(404);

    Reply badLimit = mine.get("/api/v1/jobs/" + parent + "/children?limit=0");
    assertThat(badLimit.status()).isEqualTo(400);
    assertThat(badLimit.json().get("field").asText()).isEqualTo("limit");
    Reply badCursor = mine.get("/api/v1/jobs/" + parent + "/children?cursor=abc");
    assertThat(badCursor.status()).isEqualTo(400);
    assertThat(badCursor.json().get("field").asText()).isEqualTo("cursor");
  }
}
