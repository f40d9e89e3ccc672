package io.punctual.worker.handler;

import io.punctual.outbound.signing.SigningKeys;
import io.punctual.outbound.signing.SigningSecret;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.namespace.Egress;
import io.punctual.worker.handler.http.HttpHandler;
import java.util.Arrays;
import java.util.List;

/**
 * What the {@code http} handler asks of namespaces, for tests that need no database: the same
 * secrets and egress for every namespace.
 */
public final class TestSigning {
  /** The Standard Webhooks specification's test secret. */
  public static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** A signer of {@link #SECRET}. */
  public static final WebhookSigner SIGNER = with(SECRET);

  /** Loopback granted (where the tests' receivers listen), answers kept. */
  public static final Egress LOOPBACK_GRANT = new Egress(List.of("127.0.0.1/32"), true);

  /** Every namespace signs with {@link #SECRET}, may call loopback and keeps answers. */
  public static final HttpHandler.Tenancy LOOPBACK = tenancy(SIGNER, LOOPBACK_GRANT);

  /**
   * Every namespace signs with {@link #SECRET}, reaches the public internet only, keeps nothing.
   */
  public static final HttpHandler.Tenancy PUBLIC_ONLY = tenancy(SIGNER, Egress.NONE);

  private TestSigning() {}

  /** A signer of {@code secrets} (none: nothing is signed) for every namespace. */
  public static WebhookSigner with(String... secrets) {
    return new WebhookSigner(
        SigningKeys.everywhere(Arrays.stream(secrets).map(SigningSecret::of).toList()));
  }

  /** Every namespace signs with {@code signer} and has {@code egress}. */
  public static HttpHandler.Tenancy tenancy(WebhookSigner signer, Egress egress) {
    return new HttpHandler.Tenancy(signer, namespace -> egress);
  }
}
