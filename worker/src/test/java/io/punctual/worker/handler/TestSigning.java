package io.punctual.worker.handler;

import io.punctual.outbound.signing.SigningKeys;
import io.punctual.outbound.signing.SigningSecret;
import io.punctual.outbound.signing.WebhookSigner;
import java.util.Arrays;

/** Signers for tests that need no database: the same secrets for every namespace. */
public final class TestSigning {
  /** The Standard Webhooks specification's test secret. */
  public static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** A signer of {@link #SECRET}. */
  public static final WebhookSigner SIGNER = with(SECRET);

  private TestSigning() {}

  /** A signer of {@code secrets} (none: nothing is signed) for every namespace. */
  public static WebhookSigner with(String... secrets) {
    return new WebhookSigner(
        SigningKeys.everywhere(Arrays.stream(secrets).map(SigningSecret::of).toList()));
  }
}
