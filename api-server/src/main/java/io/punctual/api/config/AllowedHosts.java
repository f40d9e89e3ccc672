package io.punctual.api.config;

import io.punctual.common.config.SettingsErrors;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code Host} values under which an API with keys switched off ({@code auth.enabled: false})
 * takes requests that change something: this server's own (each at the port the request arrived on:
 * {@code localhost}, {@code 127.0.0.1}, {@code [::1]} and the address the request arrived on) and
 * those of {@code api.allowedHosts}, each a {@code name} (any port) or a {@code name:port} (names,
 * IPv4 addresses, IPv6 addresses in brackets). A page on another site that a browser was led to
 * reach the API through a name of the attacker's (DNS rebinding) sends that name as its {@code
 * Host}, so it is refused.
 */
public final class AllowedHosts {
  /** The setting; named in every error about an entry. */
  public static final String SETTING = "api.allowedHosts";

  /** Nothing beyond this server's own names. */
  public static final AllowedHosts NONE = new AllowedHosts(List.of());

  private static final Pattern NAME =
      Pattern.compile(
          "[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*");
  private static final Pattern IPV4 =
      Pattern.compile(
          "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
              + "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

  /** What an IPv6 literal may hold, starting as one must for Java to parse it, never resolve it. */
  private static final Pattern IPV6 = Pattern.compile("[0-9a-f:][0-9a-f:.]*");

  private static final String LOOPBACK_V4 = "127.0.0.1";
  private static final String LOOPBACK_V6 = "0:0:0:0:0:0:0:1";
  private static final String LOCALHOST = "localhost";

  /** A host (a lower-case name, or an address in Java's canonical text) and a port, -1: none. */
  record HostPort(String host, int port) {}

  private final List<HostPort> entries;

  private AllowedHosts(List<HostPort> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * The hosts {@code entries} allow; each entry that is not a {@code name} or {@code name:port} is
   * added to {@code errors} by its position ({@code api.allowedHosts[1]}) and left out.
   */
  public static AllowedHosts parse(List<String> entries, SettingsErrors errors) {
    List<HostPort> parsed = new ArrayList<>();
    if (entries == null) {
      return NONE;
    }
    for (int i = 0; i < entries.size(); i++) {
      Optional<HostPort> entry = hostPort(entries.get(i), -1);
      if (entry.isPresent()) {
        parsed.add(entry.get());
      } else {
        errors.add(
            SETTING
                + "["
                + i
                + "] is not a host name or an IP address (an IPv6 one in brackets), with an"
                + " optional :port");
      }
    }
    return new AllowedHosts(parsed);
  }

  /**
   * The hosts {@code entries} allow.
   *
   * @throws io.punctual.common.config.InvalidSettingsException naming each bad entry
   */
  public static AllowedHosts of(List<String> entries) {
    SettingsErrors errors = new SettingsErrors();
    AllowedHosts hosts = parse(entries, errors);
    errors.throwIfAny();
    return hosts;
  }

  /**
   * Whether a request whose {@code Host} header is {@code host} (null: none), that arrived on
   * {@code localAddress} (the address of this server it reached, as the servlet API gives it) and
   * {@code localPort}, over TLS or not ({@code secure}), names this server.
   */
  public boolean allows(String host, String localAddress, int localPort, boolean secure) {
    Optional<HostPort> parsed = hostPort(host, secure ? 443 : 80);
    if (parsed.isEmpty()) {
      return false;
    }
    HostPort requested = parsed.get();
    for (HostPort entry : entries) {
      if (entry.host().equals(requested.host())
          && (entry.port() < 0 || entry.port() == requested.port())) {
        return true;
      }
    }
    if (requested.port() != localPort) {
      return false;
    }
    String name = requested.host();
    if (name.equals(LOCALHOST) || name.equals(LOOPBACK_V4) || name.equals(LOOPBACK_V6)) {
      return true;
    }
    return localAddress != null && name.equals(canonicalAddress(localAddress));
  }

  /** The entries, for the log: {@code punctual.internal, 10.0.0.5:8080}. */
  public String describe() {
    List<String> out = new ArrayList<>();
    for (HostPort e : entries) {
      String host = e.host().indexOf(':') >= 0 ? "[" + e.host() + "]" : e.host();
      out.add(e.port() < 0 ? host : host + ":" + e.port());
    }
    return out.isEmpty() ? "(none)" : String.join(", ", out);
  }

  /**
   * {@code text} as a host and a port ({@code defaultPort} when it names none), or empty when it is
   * not one: a name or an IPv4 address, or an IPv6 address in brackets, then maybe {@code :port}.
   */
  static Optional<HostPort> hostPort(String text, int defaultPort) {
    if (text == null) {
      return Optional.empty();
    }
    String value = text.strip().toLowerCase(Locale.ROOT);
    String host;
    String port = null;
    if (value.startsWith("[")) {
      int close = value.indexOf(']');
      if (close < 0) {
        return Optional.empty();
      }
      host = value.substring(1, close);
      String rest = value.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          return Optional.empty();
        }
        port = rest.substring(1);
      }
      if (host.indexOf(':') < 0 || host.indexOf('%') >= 0) {
        return Optional.empty(); // not IPv6, or with a zone, which no Host names
      }
      host = canonicalAddress(host);
      if (host == null) {
        return Optional.empty();
      }
    } else {
      int colon = value.lastIndexOf(':');
      host = colon < 0 ? value : value.substring(0, colon);
      port = colon < 0 ? null : value.substring(colon + 1);
      if (host.endsWith(".")) {
        host = host.substring(0, host.length() - 1);
      }
      if (host.length() > 253 || !NAME.matcher(host).matches()) {
        return Optional.empty();
      }
    }
    int number = defaultPort;
    if (port != null) {
      if (!port.matches("[0-9]{1,5}")
          || Integer.parseInt(port) < 1
          || Integer.parseInt(port) > 65535) {
        return Optional.empty();
      }
      number = Integer.parseInt(port);
    }
    return Optional.of(new HostPort(host, number));
  }

  /**
   * An address in Java's canonical text ({@code 0:0:0:0:0:0:0:1}, {@code 127.0.0.1}), or null when
   * {@code text} is not a plain IPv4 or IPv6 address (nothing is ever looked up).
   */
  static String canonicalAddress(String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    if (value.startsWith("[") && value.endsWith("]")) {
      value = value.substring(1, value.length() - 1);
    }
    int scope = value.indexOf('%');
    if (scope >= 0) {
      value = value.substring(0, scope);
    }
    if (IPV4.matcher(value).matches()) {
      return value;
    }
    if (value.indexOf(':') < 0 || !IPV6.matcher(value).matches()) {
      return null;
    }
    try {
      InetAddress address = InetAddress.getByName(value); // a literal: parsed, not resolved
      return address.getHostAddress();
    } catch (UnknownHostException | IllegalArgumentException notAnAddress) {
      return null;
    }
  }
}
