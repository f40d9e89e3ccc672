package io.punctual.outbound.address;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a host that is an IP address, in every spelling a resolver would take for one, without
 * asking DNS: dotted quads and their shorter forms ({@code 127.1}, {@code 2130706433}), hex and
 * octal parts ({@code 0x7f000001}, {@code 0177.0.0.1}: C's {@code inet_aton}, which the system
 * resolver applies to names), and IPv6 with or without brackets and zone ({@code [::1]}, {@code
 * [fe80::1%25eth0]}, {@code ::ffff:127.0.0.1}).
 */
public final class IpLiteral {
  private IpLiteral() {}

  /** The address {@code host} spells, or empty when it is a name (or nothing an IP can be). */
  public static Optional<InetAddress> parse(String host) {
    if (host == null || host.isEmpty()) {
      return Optional.empty();
    }
    String h = host;
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.indexOf(':') >= 0) {
      return ipv6(h);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return ipv4(h.toLowerCase(Locale.ROOT));
  }

  /** Whether {@code host} is an IP address in any spelling (see {@link #parse}). */
  public static boolean isLiteral(String host) {
    return parse(host).isPresent();
  }

  private static Optional<InetAddress> ipv6(String h) {
    int zone = h.indexOf('%');
    String address = zone >= 0 ? h.substring(0, zone) : h;
    if (!address.matches("[0-9A-Fa-f:.]+")) {
      return Optional.empty();
    }
    try {
      // A string with a colon is parsed as an IPv6 literal and never looked up.
      return Optional.of(InetAddress.getByName(address));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }

  /** {@code inet_aton}: one to four parts, each decimal, 0x hex or 0 octal; the last fills up. */
  private static Optional<InetAddress> ipv4(String h) {
    if (h.isEmpty() || h.startsWith(".") || h.contains("..")) {
      return Optional.empty();
    }
    String[] parts = h.split("\\.", -1);
    if (parts.length > 4) {
      return Optional.empty();
    }
    long[] values = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      long v = part(parts[i]);
      if (v < 0) {
        return Optional.empty();
      }
      values[i] = v;
    }
    long address = 0;
    for (int i = 0; i < parts.length - 1; i++) {
      if (values[i] > 0xff) {
        return Optional.empty();
      }
      address |= values[i] << (24 - 8 * i);
    }
    long last = values[parts.length - 1];
    int lastBits = 32 - 8 * (parts.length - 1);
    if (last >= (1L << lastBits)) {
      return Optional.empty();
    }
    address |= last;
    byte[] bytes = {
      (byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address
    };
    try {
      return Optional.of(InetAddress.getByAddress(bytes));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("four bytes are an IPv4 address", e);
    }
  }

  /** The value of one part, or -1 when it is not a number (or too large to matter). */
  private static long part(String p) {
    int radix = 10;
    String digits = p;
    if (p.startsWith("0x")) {
      radix = 16;
      digits = p.substring(2);
    } else if (p.length() > 1 && p.startsWith("0")) {
      radix = 8;
      digits = p.substring(1);
    }
    if (digits.isEmpty() || digits.length() > 12) {
      return -1;
    }
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c > 127 || Character.digit(c, radix) < 0) {
        return -1;
      }
    }
    return Long.parseLong(digits, radix);
  }
}
