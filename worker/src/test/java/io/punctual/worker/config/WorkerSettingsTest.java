package io.punctual.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.json.Json;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerSettingsTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String OTHER = "whsec_" + "A".repeat(32);

  @Test
  void theDeploymentWideSigningSecretsAreGoneWithAnErrorNamingWhatReplacesThem() {
    WorkerSettings list =
        Json.read(
            "{\"http\":{\"signingSecrets\":[\"" + SECRET + "\",\"" + OTHER + "\"]}}",
            WorkerSettings.class);
    WorkerSettings env =
        Json.read("{\"http\":{\"signingSecrets\":\" " + SECRET + " ,\"}}", WorkerSettings.class);
    WorkerSettings blank = Json.read("{\"http\":{\"signingSecrets\":\"\"}}", WorkerSettings.class);

    for (WorkerSettings s : List.of(list, env)) {
      assertThatThrownBy(s::validate)
          .hasMessageContaining(
              "worker.http.signingSecrets (PUNCTUAL_HTTP_SIGNING_SECRETS) is gone")
          .hasMessageContaining("POST /api/v1/namespaces/{name}/signing-secrets")
          .hasMessageNotContaining("MfKQ9r8G")
          .hasMessageNotContaining("AAAA");
    }
    blank.validate();
  }

  @Test
  void signingSecretsAreNeverWrittenBackOut() {
    WorkerSettings s = new WorkerSettings();
    s.http.signingSecrets = List.of(SECRET);

    assertThat(Json.write(s)).doesNotContain("MfKQ9r8G").doesNotContain("signingSecrets");
  }

  @Test
  void theOldSingleSigningSecretIsNoLongerASetting() {
    assertThatThrownBy(
            () ->
                Json.mapper()
                    .copy()
                    .enable(
                        com.fasterxml.jackson.databind.DeserializationFeature
                            .FAIL_ON_UNKNOWN_PROPERTIES)
                    .readValue("{\"http\":{\"signingSecret\":\"k\"}}", WorkerSettings.class))
        .hasMessageContaining("signingSecret");
  }

  @Test
  void defaultsWork() {
    WorkerSettings s = new WorkerSettings();
    s.validate();

    assertThat(s.workerId).matches(".+-" + ProcessHandle.current().pid() + "-[0-9a-f]{6}");
    assertThat(new WorkerSettings().workerId).isNotEqualTo(s.workerId);
    assertThat(s.namespaces).containsExactly("default");
    assertThat(s.concurrency).isEqualTo(1024);
    assertThat(s.claimBatchSize).isEqualTo(512);
    assertThat(s.leaseTtl).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.heartbeatInterval).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.shutdownGrace).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.maxIdleWait).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.defaultTimeout).isEqualTo(Duration.ofHours(1));
    assertThat(s.completionFlushInterval).isEqualTo(Duration.ofMillis(2));
    assertThat(s.completionBatchSize).isEqualTo(500);
    assertThat(s.claimAhead).isEqualTo(Duration.ofMillis(100));
    assertThat(s.claimGather).isEqualTo(Duration.ofMillis(2));
    assertThat(s.claimsInFlight).isEqualTo(2);
    assertThat(s.http.signingSecrets).isEmpty();
    assertThat(s.http.connectTimeout).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.http.requestTimeout).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.http.maxResponseBytes).isEqualTo(65_536);
    assertThat(s.http.allow).isEmpty();
    assertThat(s.http.outboundPolicy().opensAnything()).isFalse();
  }

  @Test
  void httpAllowIsAListOrOneCommaSeparatedString() {
    WorkerSettings list =
        Json.read(
            "{\"http\":{\"allow\":[\"127.0.0.1/32\",\"hooks.internal\"]}}", WorkerSettings.class);
    WorkerSettings env =
        Json.read(
            "{\"http\":{\"allow\":\" 127.0.0.1/32, hooks.internal ,\"}}", WorkerSettings.class);
    WorkerSettings blank = Json.read("{\"http\":{\"allow\":\"\"}}", WorkerSettings.class);

    assertThat(list.http.allow).containsExactly("127.0.0.1/32", "hooks.internal");
    assertThat(env.http.allow).containsExactly("127.0.0.1/32", "hooks.internal");
    assertThat(blank.http.allow).isEmpty();
    assertThat(env.http.outboundPolicy().describe()).isEqualTo("127.0.0.1/32, hooks.internal");
  }

  @Test
  void aBadHttpAllowEntryIsANamedSettingsError() {
    WorkerSettings s = new WorkerSettings();
    s.http.allow = List.of("10.0.0.0/8", "10.0.0.0/40");

    assertThatThrownBy(s::validate)
        .hasMessage(
            "worker.http.allow: \"10.0.0.0/40\" has a prefix length that is not a number from 0"
                + " to 32");
    assertThatThrownBy(s.http::outboundPolicy).hasMessageContaining("10.0.0.0/40");
  }

  @Test
  void bindsFromJsonKeepingDefaultsForWhatIsMissing() {
    WorkerSettings s =
        Json.read(
            "{\"workerId\":\"w1\",\"namespaces\":[\"a\",\"b\"],\"concurrency\":8,"
                + "\"leaseTtl\":\"PT20S\",\"defaultTimeout\":\"PT1M\","
                + "\"http\":{\"connectTimeout\":\"PT2S\"}}",
            WorkerSettings.class);
    s.validate();

    assertThat(s.workerId).isEqualTo("w1");
    assertThat(s.namespaces).isEqualTo(List.of("a", "b"));
    assertThat(s.concurrency).isEqualTo(8);
    assertThat(s.leaseTtl).isEqualTo(Duration.ofSeconds(20));
    assertThat(s.defaultTimeout).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.http.connectTimeout).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.http.requestTimeout).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.claimBatchSize).isEqualTo(512);
  }

  @Test
  void claimAheadIsBetweenZeroAndASecond() {
    WorkerSettings s = new WorkerSettings();
    s.claimAhead = Duration.ZERO;
    s.validate();
    s.claimAhead = Duration.ofSeconds(1);
    s.validate();

    s.claimAhead = Duration.ofMillis(1001);
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimAhead");
    s.claimAhead = Duration.ofMillis(-1);
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimAhead");
  }

  @Test
  void claimGatherIsBetweenZeroAndASecond() {
    WorkerSettings s = new WorkerSettings();
    s.claimGather = Duration.ZERO;
    s.validate();
    s.claimGather = Duration.ofMillis(1001);
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimGather");
    s.claimGather = Duration.ofMillis(-1);
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimGather");
  }

  @Test
  void claimsInFlightIsOneToSixteen() {
    WorkerSettings s = new WorkerSettings();
    s.claimsInFlight = 1;
    s.validate();
    s.claimsInFlight = 16;
    s.validate();
    s.claimsInFlight = 0;
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimsInFlight");
    s.claimsInFlight = 17;
    assertThatThrownBy(s::validate).hasMessageContaining("worker.claimsInFlight");
  }

  @Test
  void nonsenseIsRejectedNamingTheSetting() {
    WorkerSettings s = new WorkerSettings();
    s.concurrency = 0;
    assertThatThrownBy(s::validate).hasMessageContaining("worker.concurrency");

    WorkerSettings beat = new WorkerSettings();
    beat.heartbeatInterval = Duration.ofMinutes(1);
    assertThatThrownBy(beat::validate).hasMessageContaining("worker.heartbeatInterval");
  }

  @Test
  void claimsAreHeldUnwrittenOnlyWhileADeadWorkersLeaseOutlivesTheTimeItsDeathTakesToBeSeen() {
    WorkerSettings s = new WorkerSettings();
    assertThat(s.defersClaims()).as("defaults: 30 s - 10 s against 5 s + 5 s").isTrue();
    s.claimWriteAfter = java.time.Duration.ZERO;
    assertThat(s.defersClaims()).as("PT0S: written at once").isFalse();
    s.claimWriteAfter = java.time.Duration.ofMillis(250);
    s.leaseTtl = java.time.Duration.ofSeconds(2);
    s.heartbeatInterval = java.time.Duration.ofMillis(500);
    assertThat(s.defersClaims()).as("a 2 s lease expires before a death is seen").isFalse();
    s.livenessTtl = java.time.Duration.ofMillis(800);
    s.livenessInterval = java.time.Duration.ofMillis(200);
    s.leaseTtl = java.time.Duration.ofSeconds(7);
    assertThat(s.defersClaims()).as("6.5 s against 0.8 s + 5 s").isTrue();
  }

  @Test
  void theRecoveryHoldBackMustOutlastTheWritingOfHeldClaims() {
    WorkerSettings s = new WorkerSettings();
    assertThat(s.holdBackProblem(java.time.Duration.ofSeconds(3)))
        .as("defaults: 3 s against 2 × 250 ms + 2 s")
        .isEmpty();
    assertThat(s.holdBackProblem(java.time.Duration.ofMillis(2400)))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .startsWith(
                        "queue.recoveryHoldBack (PT2.4S) must be at least 2 ×"
                            + " worker.claimWriteAfter + 2 s (PT2.5S)"));
    s.claimWriteAfter = java.time.Duration.ZERO;
    assertThat(s.holdBackProblem(java.time.Duration.ZERO))
        .as("no claim held unwritten: nothing to wait for")
        .isEmpty();
  }
}
