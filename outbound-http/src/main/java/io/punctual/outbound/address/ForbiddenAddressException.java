package io.punctual.outbound.address;

import java.io.IOException;

/**
 * A connection refused by the {@link OutboundPolicy} before it was made. Not worth retrying: the
 * address will be as forbidden next time (unless the configuration changes).
 */
public final class ForbiddenAddressException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String host;
  private final String refusal;

  /**
   * {@code refusal} as {@link OutboundPolicy#refusal} words it ({@code "127.0.0.1, a loopback
   * address"}).
   */
  public ForbiddenAddressException(String host, String refusal) {
    super(host + " resolves to " + refusal + "; allow it with " + OutboundPolicy.SETTING);
    this.host = host;
    this.refusal = refusal;
  }

  /** The host (a name or an address) that was to be connected to. */
  public String host() {
    return host;
  }

  /** Why: {@code "127.0.0.1, a loopback address"}. */
  public String refusal() {
    return refusal;
  }
}
