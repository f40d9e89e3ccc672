package io.punctual.outbound.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {
  private static final String A_SECRET = secret("namespace a's key, 32 bytes long");
  private static final String B_SECRET = secret("namespace b's key, 32 bytes long");
  private static final Instant AT = Instant.parse("2026-11-29T10:00:00Z");
  private static final byte[] BODY = "{\"hello\":\"world\"}".getBytes(StandardCharsets.UTF_8);

  private static String secret(String thirtyTwoBytes) {
    return "whsec_"
        + Base64.getEncoder().encodeToString(thirtyTwoBytes.getBytes(StandardCharsets.US_ASCII));
  }

  private final WebhookSigner signer =
      new WebhookSigner(
          namespace ->
              switch (namespace) {
                case "a" -> List.of(SigningSecret.of(A_SECRET));
                case "b" -> List.of(SigningSecret.of(B_SECRET));
                default -> List.of();
              });

  private static boolean verifies(String secret, Map<String, String> headers) {
    return WebhookSignature.verify(
        secret,
        headers.get(WebhookSignature.ID),
        headers.get(WebhookSignature.TIMESTAMP),
        headers.get(WebhookSignature.SIGNATURE),
        BODY,
        AT,
        Duration.ofMinutes(5));
  }

  private Map<String, String> headers(String namespace) {
    return asMap(signer.headers(namespace, "delivery-1", AT, BODY));
  }

  private static Map<String, String> asMap(List<Map.Entry<String, String>> headers) {
    Map<String, String> map = new HashMap<>();
    headers.forEach(e -> assertThat(map.put(e.getKey(), e.getValue())).isNull());
    return map;
  }

  @Test
  void aDeliveryIsSignedWithItsNamespacesSecretsOnly() {
    Map<String, String> fromA = headers("a");

    assertThat(fromA)
        .containsEntry(WebhookSignature.ID, "delivery-1")
        .containsEntry(WebhookSignature.TIMESTAMP, Long.toString(AT.getEpochSecond()));
    assertThat(verifies(A_SECRET, fromA)).isTrue();
    assertThat(verifies(B_SECRET, fromA)).isFalse();
    assertThat(verifies(B_SECRET, headers("b"))).isTrue();
  }

  @Test
  void aNamespaceWithoutSecretsSendsNoSignature() {
    assertThat(headers("c"))
        .containsKeys(WebhookSignature.ID, WebhookSignature.TIMESTAMP)
        .doesNotContainKey(WebhookSignature.SIGNATURE);
  }

  @Test
  void everySecretOfANamespaceSigns() {
    WebhookSigner rotating =
        new WebhookSigner(
            SigningKeys.everywhere(
                List.of(SigningSecret.of(A_SECRET), SigningSecret.of(B_SECRET))));
    Map<String, String> headers = asMap(rotating.headers("any", "d", AT, BODY));

    assertThat(headers.get(WebhookSignature.SIGNATURE).split(" ")).hasSize(2);
    assertThat(verifies(A_SECRET, headers)).isTrue();
    assertThat(verifies(B_SECRET, headers)).isTrue();
  }
}
