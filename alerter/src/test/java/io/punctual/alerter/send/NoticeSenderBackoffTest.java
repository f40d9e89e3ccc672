package io.punctual.alerter.send;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.alerter.config.AlerterSettings;
import io.punctual.outbound.signing.SigningKeys;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoticeSenderBackoffTest {
  @Test
  void theWaitDoublesFromTheInitialBackoffUpToTheMaximum() {
    AlerterSettings settings = new AlerterSettings();
    NoticeSender sender =
        new NoticeSender(
            null,
            TestClock.at("2026-01-01T00:00:00Z"),
            null,
            new WebhookSigner(SigningKeys.everywhere(List.of())),
            settings);
    assertThat(sender.backoff(1)).isEqualTo(Duration.ofSeconds(10));
    assertThat(sender.backoff(2)).isEqualTo(Duration.ofSeconds(20));
    assertThat(sender.backoff(3)).isEqualTo(Duration.ofSeconds(40));
    assertThat(sender.backoff(6)).isEqualTo(Duration.ofSeconds(320));
    assertThat(sender.backoff(7)).isEqualTo(Duration.ofMinutes(10)); // 640 s, capped at 600
    assertThat(sender.backoff(50)).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void theSettingsRefuseALeaseShorterThanARequest() {
    AlerterSettings settings = new AlerterSettings();
    settings.lease = Duration.ofSeconds(5);
    settings.batchSize = 0;
    io.punctual.common.config.SettingsErrors errors =
        new io.punctual.common.config.SettingsErrors();
    settings.validate(errors);
    assertThat(errors.messages())
        .anySatisfy(m -> assertThat(m).contains("alerts.lease"))
        .anySatisfy(m -> assertThat(m).contains("alerts.batchSize"));
  }
}
