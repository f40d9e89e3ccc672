package io.punctual.outbound.address;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;

/** A block of IP addresses in CIDR notation: {@code 10.0.0.0/8}, {@code fd00::/8}. */
public record AddressBlock(InetAddress network, int prefix) {

  /**
   * Reads {@code 10.0.0.0/8}, {@code ::1/128}, or a single address ({@code 127.0.0.1}, {@code
   * ::1}), which is a block of one.
   *
   * @throws IllegalArgumentException what is wrong with it
   */
  public static AddressBlock parse(String cidr) {
    String text = cidr.strip();
    int slash = text.indexOf('/');
    String addressText = slash < 0 ? text : text.substring(0, slash);
    InetAddress address = canonical(addressText);
    int bits = address.getAddress().length * 8;
    int prefix = bits;
    if (slash >= 0) {
      String p = text.substring(slash + 1);
      if (!p.matches("[0-9]{1,3}") || Integer.parseInt(p) > bits) {
        throw new IllegalArgumentException(
            "has a prefix length that is not a number from 0 to " + bits);
      }
      prefix = Integer.parseInt(p);
    }
    AddressBlock block = new AddressBlock(address, prefix);
    if (!Arrays.equals(mask(address.getAddress(), prefix), address.getAddress())) {
      InetAddress network = block.masked();
      throw new IllegalArgumentException(
          "has bits set past its prefix (did you mean "
              + network.getHostAddress()
              + "/"
              + prefix
              + "?)");
    }
    return block;
  }

  /** A dotted quad or an IPv6 address, the ordinary way (no short, hex or octal forms here). */
  private static InetAddress canonical(String text) {
    boolean dottedQuad = text.matches("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
    boolean ipv6 = text.indexOf(':') >= 0 && text.indexOf('%') < 0;
    Optional<InetAddress> address = dottedQuad || ipv6 ? IpLiteral.parse(text) : Optional.empty();
    if (address.isEmpty()) {
      throw new IllegalArgumentException("is not an IP address or a CIDR block");
    }
    if (ipv6 && address.get() instanceof Inet4Address) {
      throw new IllegalArgumentException(
          "is an IPv4-mapped IPv6 address: write the IPv4 address (it covers both forms)");
    }
    return address.get();
  }

  /** Whether {@code address} is in this block (an IPv4 address is never in an IPv6 block). */
  public boolean contains(InetAddress address) {
    byte[] a = address.getAddress();
    byte[] n = network.getAddress();
    return a.length == n.length && Arrays.equals(mask(a, prefix), n);
  }

  /** Whether every address of {@code other} is in this block. */
  public boolean covers(AddressBlock other) {
    return other.prefix >= prefix && contains(other.network);
  }

  private InetAddress masked() {
    try {
      return InetAddress.getByAddress(mask(network.getAddress(), prefix));
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] out = address.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - 8 * i));
      out[i] = (byte) (out[i] & (0xff << (8 - keep)));
    }
    return out;
  }

  @Override
  public String toString() {
    return network.getHostAddress() + "/" + prefix;
  }
}
