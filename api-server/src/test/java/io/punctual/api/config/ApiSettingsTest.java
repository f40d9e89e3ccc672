package io.punctual.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.jackson.Jackson;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ApiSettingsTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    ApiSettings s = new ApiSettings();

    assertThat(s.maxPayloadBytes).isEqualTo(262_144);
    assertThat(s.maxBatchSize).isEqualTo(1000);
    assertThat(s.defaultMaxAttempts).isEqualTo(3);
    assertThat(s.maxMaxAttempts).isEqualTo(100);
    assertThat(s.defaultPriority).isEqualTo(Priority.NORMAL);
    assertThat(s.defaultBackoff)
        .isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), 2.0, Duration.ofHours(1), 0.2));
    assertThat(s.maxListLimit).isEqualTo(500);
    assertThat(s.defaultListLimit).isEqualTo(50);
    assertThat(s.submitGroupConcurrency).isEqualTo(1);
    assertThat(s.defaultNamespace).isEqualTo("default");
    assertThat(s.bulkStaleAfter).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.statsWarmup).isEqualTo(Duration.ofDays(31));
    s.validate();
  }

  @Test
  void bindsFromConfigurationJson() throws Exception {
    ApiSettings s =
        Jackson.newObjectMapper()
            .readValue(
                """
                {"maxBatchSize": 10, "defaultPriority": "high",
                 "defaultBackoff": {"strategy": "fixed", "delay": "PT5S"},
                 "redisTimeout": "PT1S"}
                """,
                ApiSettings.class);

    assertThat(s.maxBatchSize).isEqualTo(10);
    assertThat(s.defaultPriority).isEqualTo(Priority.HIGH);
    assertThat(s.defaultBackoff).isEqualTo(new Backoff.Fixed(Duration.ofSeconds(5)));
    assertThat(s.redisTimeout).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.maxPayloadBytes).isEqualTo(262_144);
  }

  @Test
  void writesThePriorityInLowerCase() {
    JsonNode json = Jackson.newObjectMapper().valueToTree(new ApiSettings());

    assertThat(json.get("defaultPriority").asText()).isEqualTo("normal");
  }

  @Test
  void inconsistentSettingsAreRefused() {
    ApiSettings s = new ApiSettings();
    s.defaultListLimit = 600;

    assertThatThrownBy(s::validate).hasMessageContaining("defaultListLimit");
    ApiSettings noStale = new ApiSettings();
    noStale.bulkStaleAfter = Duration.ZERO;
    assertThatThrownBy(noStale::validate).hasMessageContaining("api.bulkStaleAfter");
    ApiSettings longWarmup = new ApiSettings();
    longWarmup.statsWarmup = Duration.ofDays(32);
    assertThatThrownBy(longWarmup::validate).hasMessageContaining("api.statsWarmup");
    ApiSettings noWarmup = new ApiSettings();
    noWarmup.statsWarmup = Duration.ZERO;
    noWarmup.validate();
    assertThatThrownBy(() -> new ApiSettings().setDefaultPriorityName("urgent"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theBoundsOnWorkPerRequestHaveWorkingDefaultsAndRanges() {
    ApiSettings defaults = new ApiSettings();
    assertThat(defaults.statementTimeout).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.payloadSearchMaxRange).isEqualTo(Duration.ofDays(1));
    assertThat(defaults.readsPerSecondPerKey).isEqualTo(1_000);
    defaults.validate();

    ApiSettings off = new ApiSettings();
    off.statementTimeout = Duration.ZERO;
    off.readsPerSecondPerKey = 0;
    off.validate();

    ApiSettings shortTimeout = new ApiSettings();
    shortTimeout.statementTimeout = Duration.ofMillis(50);
    assertThatThrownBy(shortTimeout::validate).hasMessageContaining("api.statementTimeout");
    ApiSettings noRange = new ApiSettings();
    noRange.payloadSearchMaxRange = Duration.ZERO;
    assertThatThrownBy(noRange::validate).hasMessageContaining("api.payloadSearchMaxRange");
    ApiSettings negativeReads = new ApiSettings();
    negativeReads.readsPerSecondPerKey = -1;
    assertThatThrownBy(negativeReads::validate).hasMessageContaining("api.readsPerSecondPerKey");

    AuthSettings auth = new AuthSettings();
    assertThat(auth.unknownKeysFor).isEqualTo(Duration.ofSeconds(2));
    auth.validate();
    auth.unknownKeysFor = Duration.ofMinutes(2);
    assertThatThrownBy(auth::validate).hasMessageContaining("auth.unknownKeysFor");

    AuthSettings pacing = new AuthSettings();
    assertThat(pacing.refusalsPerSecondPerSource).isEqualTo(50);
    pacing.refusalsPerSecondPerSource = 0; // off
    pacing.validate();
    pacing.refusalsPerSecondPerSource = -1;
    assertThatThrownBy(pacing::validate).hasMessageContaining("auth.refusalsPerSecondPerSource");
  }
}
