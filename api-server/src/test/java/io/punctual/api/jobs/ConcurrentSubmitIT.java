package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Job;
import io.punctual.model.Priority;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Single submits arriving together share transactions (the group commit of {@code POST /jobs}):
 * each is still answered with its own job, stored and queued, and one bad submit fails alone.
 */
class ConcurrentSubmitIT {
  static final ApiFixture FIXTURE = ApiFixture.start(oneTransactionAtATime());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  /** One group transaction at a time, so that submits arriving meanwhile must share the next. */
  private static ApiSettings oneTransactionAtATime() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.submitGroupConcurrency = 1;
    return settings;
  }

  @Test
  void concurrentSubmitsAreEachStoredQueuedAndAnsweredWithTheirOwnJob() throws Exception {
    int clients = 32;
    int each = 20;
    List<Callable<List<Reply>>> work = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      work.add(
          () -> {
            List<Reply> replies = new ArrayList<>();
            for (int i = 0; i < each; i++) {
              String namespace = client % 2 == 0 ? "default" : "billing";
              String body =
                  "{\"type\":\"noop\",\"payload\":{\"client\":%d,\"i\":%d},\"priority\":\"%s\"}"
                      .formatted(client, i, i % 3 == 0 ? "high" : "normal");
              replies.add(FIXTURE.http().namespace(namespace).post("/api/v1/jobs", body));
            }
            return replies;
          });
    }

    List<Reply> replies = runTogether(work).stream().flatMap(List::stream).toList();

    assertThat(replies).hasSize(clients * each);
    assertThat(replies).allSatisfy(r -> assertThat(r.status()).isEqualTo(201));
    Set<String> ids = new HashSet<>();
    for (Reply r : replies) {
      ids.add(r.json().get("id").asText());
      String namespace = r.json().get("namespace").asText();
      Job stored =
          FIXTURE.stack.queries.find(namespace, UUID.fromString(r.json().get("id").asText())).get();
      // the answer describes the job stored for this very request
      assertThat(stored.payload()).isEqualTo(r.json().get("payload"));
      assertThat(queued(namespace, stored.priority())).contains(stored.id().toString());
    }
    assertThat(ids).hasSize(clients * each);
    var groups =
        FIXTURE.app.getEnvironment().metrics().histogram("punctual.api.jobs.submitGroupSize");
    assertThat(groups.getSnapshot().getMax()).as("largest group").isGreaterThan(1);
    assertThat(groups.getCount()).as("transactions").isLessThan(clients * each);
  }

  @Test
  void theSameIdempotentRequestSentTogetherMakesOneJob() throws Exception {
    String body = "{\"type\":\"charge\",\"idempotencyKey\":\"together-1\",\"payload\":{\"n\":1}}";
    List<Callable<Reply>> work = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      work.add(() -> FIXTURE.http().post("/api/v1/jobs", body));
    }

    List<Reply> replies = runTogether(work);

    assertThat(replies).extracting(Reply::status).containsOnly(201, 200);
    assertThat(replies).filteredOn(r -> r.status() == 201).hasSize(1);
    assertThat(replies).extracting(r -> r.json().get("id").asText()).containsOnly(id(replies));
  }

  @Test
  void aConflictingIdempotencyKeyFailsOnlyItsOwnSubmit() throws Exception {
    FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"charge\",\"idempotencyKey\":\"taken-1\"}");
    List<Callable<Reply>> work = new ArrayList<>();
    for (int c = 0; c < 24; c++) {
      int n = c;
      work.add(
          () ->
              n == 12
                  ? FIXTURE
                      .http()
                      .post(
                          "/api/v1/jobs",
                          "{\"type\":\"charge\",\"idempotencyKey\":\"taken-1\",\"priority\":\"low\"}")
                  : FIXTURE
                      .http()
                      .post("/api/v1/jobs", "{\"type\":\"noop\",\"tags\":[\"n" + n + "\"]}"));
    }

    List<Reply> replies = runTogether(work);

    assertThat(replies.get(12).status()).isEqualTo(409);
    assertThat(replies.get(12).json().get("field").asText()).isEqualTo("idempotencyKey");
    for (int i = 0; i < replies.size(); i++) {
      if (i != 12) {
        Reply r = replies.get(i);
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().get("tags").get(0).asText()).isEqualTo("n" + i);
      }
    }
  }

  private static String id(List<Reply> replies) {
    return replies.get(0).json().get("id").asText();
  }

  /** Runs the calls at the same moment, each on its own thread; their results in order. */
  private static <T> List<T> runTogether(List<Callable<T>> calls) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> call : calls) {
        futures.add(
            threads.submit(
                () -> {
                  start.await();
                  return call.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get());
      }
      return results;
    }
  }

  private static List<String> queued(String namespace, Priority priority) {
    return FIXTURE.stack.redis.sync().zrange(FIXTURE.stack.keys.queue(namespace, priority), 0, -1);
  }
}
