package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.worker.handler.http.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {
  @Test
  void headerIsTimestampAndHexHmacOfTimestampDotBody() throws Exception {
    String header = WebhookSignature.sign("s3cret", 1_700_000_000L, "{\"a\":1}");

    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec("s3cret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String expected =
        HexFormat.of()
            .formatHex(mac.doFinal("1700000000.{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
    assertThat(header).isEqualTo("t=1700000000,v1=" + expected);
    assertThat(expected).hasSize(64).matches("[0-9a-f]+");
  }

  @Test
  void verifyAcceptsTheRightSecretBodyAndTimeOnly() {
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    String header = WebhookSignature.sign("k", now.getEpochSecond(), "body");
    Duration tolerance = Duration.ofMinutes(5);

    assertThat(WebhookSignature.verify("k", header, "body", now, tolerance)).isTrue();
    assertThat(WebhookSignature.verify("other", header, "body", now, tolerance)).isFalse();
    assertThat(WebhookSignature.verify("k", header, "body2", now, tolerance)).isFalse();
    assertThat(WebhookSignature.verify("k", header, "body", now.plusSeconds(600), tolerance))
        .isFalse();
    assertThat(WebhookSignature.verify("k", "garbage", "body", now, tolerance)).isFalse();
    assertThat(WebhookSignature.verify("k", null, "body", now, tolerance)).isFalse();
  }
}
