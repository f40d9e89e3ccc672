package io.punctual.outbound.address;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The addresses Punctual does not send requests to unless told: loopback, private, link-local
 * (cloud metadata included), unspecified, multicast and reserved blocks, in IPv4 and IPv6, and IPv6
 * addresses that carry one of those IPv4 addresses (IPv4-mapped {@code ::ffff:127.0.0.1},
 * IPv4-compatible {@code ::127.0.0.1}, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16},
 * IPv4-translated {@code ::ffff:0:127.0.0.1}). Three IPv6 blocks that reach IPv4 through a
 * translator or a tunnel are refused whatever they carry: local-use NAT64 {@code 64:ff9b:1::/48}
 * (its IPv4 address sits where the operator's prefix length puts it), Teredo {@code 2001::/32} (an
 * obfuscated client address behind a relay) and IPv4-translated {@code ::ffff:0:0:0/96}.
 */
public final class SpecialAddresses {
  /** One block and what its addresses are. */
  record Special(AddressBlock block, String kind) {}

  static final List<Special> BLOCKS =
      List.of(
          special("0.0.0.0/8", "unspecified"),
          special("10.0.0.0/8", "private"),
          special("100.64.0.0/10", "reserved (shared address space)"),
          special("127.0.0.0/8", "loopback"),
          special("169.254.0.0/16", "link-local (cloud metadata)"),
          special("172.16.0.0/12", "private"),
          special("192.0.0.0/24", "reserved (IETF protocol assignments)"),
          special("192.0.2.0/24", "reserved (documentation)"),
          special("192.168.0.0/16", "private"),
          special("198.18.0.0/15", "reserved (benchmarking)"),
          special("198.51.100.0/24", "reserved (documentation)"),
          special("203.0.113.0/24", "reserved (documentation)"),
          special("224.0.0.0/4", "multicast"),
          special("240.0.0.0/4", "reserved (incl. broadcast)"),
          special("::/128", "unspecified"),
          special("::1/128", "loopback"),
          special("::ffff:0:0:0/96", "reserved (IPv4-translated)"),
          special("64:ff9b:1::/48", "reserved (local-use NAT64)"),
          special("100::/64", "reserved (discard-only)"),
          special("2001::/32", "reserved (Teredo)"),
          special("2001:db8::/32", "reserved (documentation)"),
          special("fc00::/7", "private (unique local)"),
          special("fe80::/10", "link-local"),
          special("fec0::/10", "private (site-local)"),
          special("ff00::/8", "multicast"));

  private static final AddressBlock IPV4_COMPATIBLE = AddressBlock.parse("::/96");
  private static final AddressBlock NAT64 = AddressBlock.parse("64:ff9b::/96");
  private static final AddressBlock IPV4_TRANSLATED = AddressBlock.parse("::ffff:0:0:0/96");
  private static final AddressBlock SIX_TO_FOUR = AddressBlock.parse("2002::/16");

  private SpecialAddresses() {}

  private static Special special(String cidr, String kind) {
    return new Special(AddressBlock.parse(cidr), kind);
  }

  /** What kind of special address {@code address} is ({@code "loopback"}), or empty if none. */
  public static Optional<String> kind(InetAddress address) {
    for (Special s : BLOCKS) {
      if (s.block().contains(address)) {
        return Optional.of(s.kind());
      }
    }
    return embeddedIpv4(address).flatMap(SpecialAddresses::kind);
  }

  /**
   * The IPv4 address an IPv6 address carries ({@code ::127.0.0.1}, {@code 64:ff9b::7f00:1}, {@code
   * 2002:7f00:1::}, {@code ::ffff:0:7f00:1}), or empty. (Java already reads {@code
   * ::ffff:127.0.0.1} as 127.0.0.1.)
   */
  public static Optional<InetAddress> embeddedIpv4(InetAddress address) {
    if (!(address instanceof Inet6Address)) {
      return Optional.empty();
    }
    byte[] b = address.getAddress();
    byte[] v4;
    if (IPV4_COMPATIBLE.contains(address)
        || NAT64.contains(address)
        || IPV4_TRANSLATED.contains(address)
        || isMapped(b)) {
      v4 = Arrays.copyOfRange(b, 12, 16);
    } else if (SIX_TO_FOUR.contains(address)) {
      v4 = Arrays.copyOfRange(b, 2, 6);
    } else {
      return Optional.empty();
    }
    try {
      InetAddress embedded = InetAddress.getByAddress(v4);
      return embedded instanceof Inet4Address ? Optional.of(embedded) : Optional.empty();
    } catch (UnknownHostException e) {
      throw new IllegalStateException("four bytes are an IPv4 address", e);
    }
  }

  private static boolean isMapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
  }
}
