package io.punctual.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.client.JobRequest;
import io.punctual.client.PunctualApiException;
import io.punctual.client.WorkflowRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxRelaySettingsTest {
  private static final OutboxRelaySettings D = OutboxRelaySettings.DEFAULTS;

  @Test
  void theBackoffDoublesFromTheFirstUpToTheLongest() {
    assertThat(D.backoff(0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(D.backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(D.backoff(4)).isEqualTo(Duration.ofSeconds(16));
    assertThat(D.backoff(5)).isEqualTo(Duration.ofSeconds(30));
    assertThat(D.backoff(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void settingsOutOfRangeAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> D.withBatchSize(0)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> D.withPollInterval(Duration.ZERO))
        .hasMessageContaining("pollInterval");
    assertThatThrownBy(() -> D.withLease(Duration.ofSeconds(-1))).hasMessageContaining("lease");
    assertThatThrownBy(() -> D.withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("maxBackoff");
    assertThatThrownBy(() -> D.withForwardConcurrency(257))
        .hasMessageContaining("forwardConcurrency");
  }

  @Test
  void onlyARefusalOfTheRequestItselfSetsARowAside() {
    for (int status : List.of(400, 413, 422)) {
      assertThat(OutboxRelay.refusedForGood(problem(status, "invalid-request"))).isTrue();
    }
    assertThat(OutboxRelay.refusedForGood(problem(409, "https://x/problems/idempotency-conflict")))
        .isTrue();
    for (int status : List.of(401, 403, 404, 408, 429, 500, 502, 503)) {
      assertThat(OutboxRelay.refusedForGood(problem(status, "any"))).as("" + status).isFalse();
    }
    assertThat(OutboxRelay.refusedForGood(problem(409, "conflict"))).isFalse();
  }

  @Test
  void aStoredRequestReadsBackAsTheSameJson() {
    JobRequest request =
        JobRequest.builder("invoice.send")
            .payload(
                Map.of(
                    "order",
                    42,
                    "lines",
                    List.of(1, 2),
                    "amount",
                    new java.math.BigDecimal("0.12345678901234567890123")))
            .delay(Duration.ofMinutes(5))
            .maxAttempts(7)
            .idempotencyKey("outbox-1")
            .tags("a", "b")
            .build();
    String json = OutboxJson.write(new OutboxJson.Stored(null, request, null));
    assertThat(OutboxJson.write(OutboxJson.read(json))).isEqualTo(json);
    assertThat(json)
        .contains("\"delay\":\"PT5M\"", "0.12345678901234567890123")
        .doesNotContain("null", "\"job\"");

    String elsewhere = OutboxJson.write(new OutboxJson.Stored("billing", request, null));
    assertThat(elsewhere).startsWith("{\"namespace\":\"billing\",\"job\":{").doesNotContain("null");
    OutboxJson.Stored read = OutboxJson.read(elsewhere);
    assertThat(read.namespace()).isEqualTo("billing");
    assertThat(read.workflow()).isNull();
    assertThat(OutboxJson.write(read)).isEqualTo(elsewhere);

    String workflow =
        OutboxJson.write(
            new OutboxJson.Stored(
                null, null, WorkflowRequest.of(request).withIdempotencyKey("outbox-2")));
    assertThat(workflow).startsWith("{\"workflow\":{");
    assertThat(OutboxJson.read(workflow).workflow().jobs()).hasSize(1);
    assertThat(OutboxJson.write(OutboxJson.read(workflow))).isEqualTo(workflow);

    assertThatThrownBy(() -> OutboxJson.read("{\"job\":" + json + ",\"workflow\":{\"jobs\":[]}}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one job or one workflow");
    assertThatThrownBy(() -> OutboxJson.read("{\"namespace\":\"a b\",\"job\":" + json + "}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no namespace the API takes");
  }

  private static PunctualApiException problem(int status, String type) {
    return new PunctualApiException(status, type, "t", "d", null, null);
  }
}
