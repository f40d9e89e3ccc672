package io.punctual.outbound.signing;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Signs one delivery the Standard Webhooks way: its {@code webhook-id}, its {@code
 * webhook-timestamp} and, when the namespace sending it has secrets, {@code webhook-signature} with
 * every one of them ({@link WebhookSignature}) over the exact bytes of the body. The worker's
 * {@code http} handler and the alerter's notices sign through it.
 */
public final class WebhookSigner {
  /** The header naming the namespace a delivery is of. */
  public static final String NAMESPACE = "Punctual-Namespace";

  private final SigningKeys keys;

  public WebhookSigner(SigningKeys keys) {
    this.keys = keys;
  }

  /**
   * A signer whose namespaces' secrets come from {@code load} (their keys' bytes), each read again
   * after {@link CachedSigningKeys#DEFAULT_TTL}.
   */
  public static WebhookSigner caching(Function<String, List<byte[]>> load, Clock clock) {
    return new WebhookSigner(new CachedSigningKeys(load, clock, CachedSigningKeys.DEFAULT_TTL));
  }

  /**
   * The headers that sign {@code body}, sent by {@code namespace} as delivery {@code id} at {@code
   * at}, and {@value #NAMESPACE} naming the namespace, so that a receiver serving several knows
   * which secrets verify it.
   */
  public List<Map.Entry<String, String>> headers(
      String namespace, String id, Instant at, byte[] body) {
    List<Map.Entry<String, String>> out = new ArrayList<>(4);
    out.add(Map.entry(NAMESPACE, namespace));
    long t = at.getEpochSecond();
    out.add(Map.entry(WebhookSignature.ID, id));
    out.add(Map.entry(WebhookSignature.TIMESTAMP, Long.toString(t)));
    List<SigningSecret> secrets = keys.of(namespace);
    if (!secrets.isEmpty()) {
      out.add(Map.entry(WebhookSignature.SIGNATURE, WebhookSignature.header(secrets, id, t, body)));
    }
    return out;
  }
}
