package io.punctual.outbound;

import io.punctual.outbound.address.ForbiddenAddressException;
import io.punctual.outbound.address.OutboundPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Optional;
import org.apache.hc.client5.http.io.DetachedSocketFactory;

/**
 * The sockets of the callback client: each checks the address it is about to connect to against the
 * {@link OutboundPolicy}, whatever path led there (a resolved name, an address in the URL, a
 * redirect). This is the last wall; {@link GuardedDnsResolver} refuses earlier with the same words.
 */
final class GuardedSocketFactory implements DetachedSocketFactory {
  private final OutboundPolicy policy;

  GuardedSocketFactory(OutboundPolicy policy) {
    this.policy = policy;
  }

  @Override
  public Socket create(Proxy proxy) throws IOException {
    if (proxy != null && proxy.type() != Proxy.Type.DIRECT) {
      throw new IOException("callbacks do not go through proxies");
    }
    return new GuardedSocket(policy);
  }

  @Override
  public Socket create(String scheme, Proxy proxy) throws IOException {
    return create(proxy);
  }

  /** A plain socket whose connect refuses what the policy refuses. */
  static final class GuardedSocket extends Socket {
    private final OutboundPolicy policy;

    GuardedSocket(OutboundPolicy policy) {
      this.policy = policy;
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
      if (!(endpoint instanceof InetSocketAddress address) || address.isUnresolved()) {
        throw new IOException("callbacks connect to resolved addresses only: " + endpoint);
      }
      Optional<String> refusal = policy.refusal(address.getHostString(), address.getAddress());
      if (refusal.isPresent()) {
        close();
        throw new ForbiddenAddressException(address.getHostString(), refusal.get());
      }
      super.connect(endpoint, timeout);
    }
  }
}
