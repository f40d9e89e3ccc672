package io.punctual.outbound.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {
  // The test vector of the Standard Webhooks reference libraries (their sign tests).
  private static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final long SPEC_TIMESTAMP = 1614265330L;
  private static final String SPEC_PAYLOAD = "{\"test\": 2432232314}";
  private static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  private static final String OTHER_SECRET =
      "whsec_"
          + Base64.getEncoder()
              .encodeToString(
                  "another key of thirty-two bytes!".getBytes(StandardCharsets.US_ASCII));
  private static final Duration TOLERANCE = WebhookSignature.DEFAULT_TOLERANCE;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void signingReproducesTheSpecificationTestVector() {
    String signature =
        WebhookSignature.sign(
            SigningSecret.of(SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, utf8(SPEC_PAYLOAD));

    assertThat(signature).isEqualTo(SPEC_SIGNATURE);
  }

  @Test
  void verifyAcceptsTheSpecificationTestVectorWithinTheTolerance() {
    Instant sent = Instant.ofEpochSecond(SPEC_TIMESTAMP);

    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET, SPEC_ID, "1614265330", SPEC_SIGNATURE, SPEC_PAYLOAD, sent, TOLERANCE))
        .isTrue();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                SPEC_ID,
                "1614265330",
                SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                sent.plus(TOLERANCE),
                TOLERANCE))
        .isTrue();
  }

  @Test
  void twoSecretsGiveTwoSpaceSeparatedSignaturesEachOneVerifiable() {
    List<SigningSecret> secrets =
        List.of(SigningSecret.of(SPEC_SECRET), SigningSecret.of(OTHER_SECRET));
    String header = WebhookSignature.header(secrets, SPEC_ID, SPEC_TIMESTAMP, utf8(SPEC_PAYLOAD));
    Instant now = Instant.ofEpochSecond(SPEC_TIMESTAMP);

    assertThat(header.split(" ")).hasSize(2);
    assertThat(header).startsWith(SPEC_SIGNATURE + " v1,");
    for (String secret : List.of(SPEC_SECRET, OTHER_SECRET)) {
      assertThat(
              WebhookSignature.verify(
                  secret, SPEC_ID, "1614265330", header, SPEC_PAYLOAD, now, TOLERANCE))
          .as("verified with %s", secret.equals(SPEC_SECRET) ? "the first" : "the second")
          .isTrue();
    }
    // A receiver that knows only the second secret, given only the first signature, refuses.
    assertThat(
            WebhookSignature.verify(
                OTHER_SECRET, SPEC_ID, "1614265330", SPEC_SIGNATURE, SPEC_PAYLOAD, now, TOLERANCE))
        .isFalse();
  }

  @Test
  void aTamperedBodyIdOrTimestampIsRefused() {
    Instant now = Instant.ofEpochSecond(SPEC_TIMESTAMP);

    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                SPEC_ID,
                "1614265330",
                SPEC_SIGNATURE,
                "{\"test\": 2432232315}",
                now,
                TOLERANCE))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                "msg_other",
                "1614265330",
                SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                now,
                TOLERANCE))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET, SPEC_ID, "1614265331", SPEC_SIGNATURE, SPEC_PAYLOAD, now, TOLERANCE))
        .isFalse();
  }

  @Test
  void aStaleOrFutureTimestampIsRefusedEvenWithAGoodSignature() {
    Instant sent = Instant.ofEpochSecond(SPEC_TIMESTAMP);

    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                SPEC_ID,
                "1614265330",
                SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                sent.plus(TOLERANCE).plusSeconds(1),
                TOLERANCE))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                SPEC_ID,
                "1614265330",
                SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                sent.minus(TOLERANCE).minusSeconds(1),
                TOLERANCE))
        .isFalse();
  }

  @Test
  void malformedHeadersAndSecretsAreRefused() {
    Instant now = Instant.ofEpochSecond(SPEC_TIMESTAMP);
    String sig = SPEC_SIGNATURE.substring(3);

    for (String header :
        new String[] {"", sig, "v2," + sig, "v1,", "v1,not base64!", "v1," + sig + "x"}) {
      assertThat(
              WebhookSignature.verify(
                  SPEC_SECRET, SPEC_ID, "1614265330", header, SPEC_PAYLOAD, now, TOLERANCE))
          .as(header)
          .isFalse();
    }
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET, SPEC_ID, "1614265330", null, SPEC_PAYLOAD, now, TOLERANCE))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET, SPEC_ID, "-1614265330", SPEC_SIGNATURE, SPEC_PAYLOAD, now, TOLERANCE))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET, SPEC_ID, " 1614265330", SPEC_SIGNATURE, SPEC_PAYLOAD, now, TOLERANCE))
        .isFalse();
    // The key is the decoded bytes: the secret without its prefix is not a secret.
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET.substring(6),
                SPEC_ID,
                "1614265330",
                SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                now,
                TOLERANCE))
        .isFalse();
    // An unknown signature beside the right one does not matter.
    assertThat(
            WebhookSignature.verify(
                SPEC_SECRET,
                SPEC_ID,
                "1614265330",
                "v1,bm9wZQ== v2,abc " + SPEC_SIGNATURE,
                SPEC_PAYLOAD,
                now,
                TOLERANCE))
        .isTrue();
  }

  @Test
  void secretsAreWhsecAndBase64OfAtLeast24BytesAndNeverShown() {
    assertThat(SigningSecret.parse(SPEC_SECRET)).isPresent();
    assertThat(SigningSecret.parse(SPEC_SECRET).orElseThrow().key()).hasSize(24);
    assertThat(SigningSecret.parse(SPEC_SECRET.substring(6))).isEmpty();
    assertThat(SigningSecret.parse("whsec_" + Base64.getEncoder().encodeToString(new byte[23])))
        .isEmpty();
    assertThat(SigningSecret.parse("whsec_not base64 at all!!")).isEmpty();
    assertThat(SigningSecret.parse(null)).isEmpty();
    assertThat(SigningSecret.of(SPEC_SECRET).toString()).doesNotContain("MfKQ");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SigningSecret.of("whsec_c2hvcnQ="))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("c2hvcnQ");
  }
}
