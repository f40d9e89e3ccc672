package io.punctual.outbound;

import io.punctual.outbound.address.ForbiddenAddressException;
import io.punctual.outbound.address.OutboundPolicy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.hc.client5.http.DnsResolver;

/**
 * Resolves a callback's host and keeps only the addresses the {@link OutboundPolicy} allows; when
 * none is left, the connection fails with a {@link ForbiddenAddressException}. Called for every new
 * connection, so a name that resolves differently the next time (DNS rebinding) is checked again;
 * {@link GuardedSocketFactory} checks the address once more right before the connect.
 */
final class GuardedDnsResolver implements DnsResolver {
  private final OutboundPolicy policy;

  GuardedDnsResolver(OutboundPolicy policy) {
    this.policy = policy;
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    InetAddress[] all = InetAddress.getAllByName(host);
    List<InetAddress> allowed = new ArrayList<>();
    for (InetAddress address : all) {
      if (policy.refusal(host, address).isEmpty()) {
        allowed.add(address);
      }
    }
    if (allowed.isEmpty()) {
      Optional<String> why = policy.firstRefusal(host, Arrays.asList(all));
      throw new ForbiddenHostException(
          new ForbiddenAddressException(host, why.orElse("an address that is not allowed")));
    }
    return allowed.toArray(new InetAddress[0]);
  }

  @Override
  public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
    List<InetSocketAddress> out = new ArrayList<>();
    for (InetAddress address : resolve(host)) {
      out.add(new InetSocketAddress(address, port));
    }
    return out;
  }

  @Override
  public String resolveCanonicalHostname(String host) throws UnknownHostException {
    return host;
  }

  /**
   * What {@link DnsResolver} may throw ({@link UnknownHostException}), carrying the refusal as its
   * cause.
   */
  static final class ForbiddenHostException extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    ForbiddenHostException(ForbiddenAddressException cause) {
      super(cause.getMessage());
      initCause(cause);
    }
  }
}
