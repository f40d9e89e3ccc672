package io.punctual.api.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A remote worker's long poll does not hold the API's stop: at the start of the HTTP server's stop
 * every waiting claim is answered (no attempts), rather than after its full wait.
 */
class RemoteWorkerShutdownIT {
  @Test
  void stoppingTheApiAnswersAWaitingClaimAtOnce() throws Exception {
    ApiFixture fixture = ApiFixture.start();
    fixture.app.before();
    boolean stopped = false;
    try {
      HttpSupport http = fixture.http();
      Reply registered =
          http.post("/api/v1/workers", "{\"types\":[\"remote.idle\"],\"concurrency\":1}");
      assertThat(registered.status()).isEqualTo(201);
      String worker = registered.json().get("id").asText();
      CompletableFuture<Reply> poll =
          CompletableFuture.supplyAsync(
              () ->
                  http.post(
                      "/api/v1/workers/" + worker + "/claim", "{\"max\":1,\"waitMs\":25000}"));
      Thread.sleep(500); // the claim is waiting in its long poll

      long start = System.nanoTime();
      fixture.app.after();
      stopped = true;
      Reply answer = poll.get(5, TimeUnit.SECONDS);
      Duration stop = Duration.ofNanos(System.nanoTime() - start);

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.json().get("attempts")).isEmpty();
      // Without the drain the stop would wait for the poll's 25 s (or the server's grace).
      assertThat(stop).isLessThan(Duration.ofSeconds(10));
    } finally {
      if (!stopped) {
        fixture.app.after();
      }
    }
  }
}
