package io.punctual.worker.handler.http;

import io.punctual.common.cache.ExpiringCache;
import io.punctual.common.config.SettingsErrors;
import io.punctual.outbound.GuardedHttpClient;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.store.namespace.Egress;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a namespace's callbacks may reach, and how: the deployment's {@code worker.http.allow}
 * restricting the namespace's own grant (its egress), a guarded client checking that at connect
 * time, and whether its answers are kept. A namespace's grant is read again after {@link #TTL}.
 * Namespaces with the same effective policy share one client (its connection pool); those without a
 * grant share the public-only one.
 */
final class NamespaceCallbacks implements AutoCloseable {
  /** How long a namespace's grant is kept before it is read again. */
  static final Duration TTL = Duration.ofSeconds(5);

  /** Most namespaces remembered; past it the cache starts over (the clients are kept). */
  private static final int MAX_CACHED = 10_000;

  private static final Logger log = LoggerFactory.getLogger(NamespaceCallbacks.class);

  /**
   * A namespace's callbacks: where they may go, the client that takes them, answers kept or not.
   */
  record ForNamespace(OutboundPolicy policy, GuardedHttpClient client, boolean keepResponse) {}

  private final HttpSettings settings;
  private final OutboundPolicy ceiling;
  private final SSLContext tls;
  private final Function<String, Egress> egress;
  private final ExpiringCache<String, ForNamespace> byNamespace;
  private final Map<String, GuardedHttpClient> clients = new ConcurrentHashMap<>();

  NamespaceCallbacks(
      HttpSettings settings, SSLContext tls, Function<String, Egress> egress, Clock clock) {
    this.settings = settings;
    this.ceiling = settings.outboundPolicy();
    this.tls = tls;
    this.egress = egress;
    this.byNamespace = new ExpiringCache<>(clock, TTL, MAX_CACHED);
  }

  /** The namespace's callbacks as its grant says now (read at most every {@link #TTL}). */
  ForNamespace of(String namespace) {
    return byNamespace.get(namespace, this::read);
  }

  private ForNamespace read(String namespace) {
    Egress grant = egress.apply(namespace);
    // Entries were checked when granted; one that no longer parses opens nothing.
    OutboundPolicy granted =
        OutboundPolicy.parse(grant.allow(), "egress of " + namespace, new SettingsErrors());
    OutboundPolicy policy = ceiling.restrict(granted);
    return new ForNamespace(
        policy,
        clients.computeIfAbsent(policy.describe(), k -> client(policy)),
        grant.keepResponse());
  }

  private GuardedHttpClient client(OutboundPolicy policy) {
    return new GuardedHttpClient(
        policy, settings.connectTimeout, settings.requestTimeout, settings.maxResponseBytes, tls);
  }

  @Override
  public void close() {
    for (GuardedHttpClient client : clients.values()) {
      try {
        client.close();
      } catch (IOException e) {
        log.debug("callback client close failed", e);
      }
    }
  }
}
