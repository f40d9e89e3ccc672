package io.punctual.outbound.address;

import io.punctual.common.config.SettingsErrors;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Where Punctual may send HTTP requests of its own (the {@code http} job type's callbacks, and
 * later alert webhooks): anywhere except the {@link SpecialAddresses} (loopback, private,
 * link-local, unspecified, multicast, reserved), unless the allowlist opens them. The allowlist
 * ({@code worker.http.allow}) holds CIDR blocks ({@code 10.1.0.0/16}, {@code 127.0.0.1/32}, a
 * single address) and host names ({@code hooks.internal}: any address that name resolves to).
 *
 * <p>The check is meant for the address a connection is about to be made to, after resolution (so
 * DNS rebinding and unusual spellings of addresses change nothing); {@link #literalRefusal} refuses
 * early what a URL already spells as an address.
 */
public final class OutboundPolicy {
  /** The setting that opens addresses; named in every refusal. */
  public static final String SETTING = "worker.http.allow";

  /** Nothing allowed beyond the public internet. */
  public static final OutboundPolicy DEFAULT = new OutboundPolicy(List.of(), Set.of());

  private final List<AddressBlock> allowedBlocks;
  private final Set<String> allowedHosts;

  private OutboundPolicy(List<AddressBlock> allowedBlocks, Set<String> allowedHosts) {
    this.allowedBlocks = List.copyOf(allowedBlocks);
    this.allowedHosts = Set.copyOf(allowedHosts);
  }

  /**
   * The policy that {@code entries} allow. An entry may hold several, comma-separated (as {@code
   * PUNCTUAL_HTTP_ALLOW} does); blank ones are ignored. Each entry that is neither a CIDR block, an
   * IP address nor a host name is added to {@code errors} under {@code setting} and left out.
   */
  public static OutboundPolicy parse(List<String> entries, String setting, SettingsErrors errors) {
    List<AddressBlock> blocks = new ArrayList<>();
    Set<String> hosts = new LinkedHashSet<>();
    for (String entry : split(entries)) {
      if (entry.indexOf('/') >= 0 || entry.indexOf(':') >= 0 || looksNumeric(entry)) {
        try {
          blocks.add(AddressBlock.parse(entry));
        } catch (IllegalArgumentException e) {
          errors.add(setting + ": \"" + entry + "\" " + e.getMessage());
        }
      } else if (isHostName(entry)) {
        hosts.add(normalHost(entry));
      } else {
        errors.add(
            setting
                + ": \""
                + entry
                + "\" is not a CIDR block (10.1.0.0/16, fd00::/8), an IP address or a host name");
      }
    }
    return new OutboundPolicy(blocks, hosts);
  }

  /**
   * The policy {@code entries} allow, for tests and code: throws {@link
   * io.punctual.common.config.InvalidSettingsException} naming each bad entry.
   */
  public static OutboundPolicy of(String... entries) {
    SettingsErrors errors = new SettingsErrors();
    OutboundPolicy policy = parse(List.of(entries), SETTING, errors);
    errors.throwIfAny();
    return policy;
  }

  /** The entries of {@code entries}, each split at commas, stripped, blanks left out. */
  public static List<String> split(List<String> entries) {
    List<String> out = new ArrayList<>();
    if (entries == null) {
      return out;
    }
    for (String entry : entries) {
      if (entry == null) {
        continue;
      }
      for (String part : entry.split(",", -1)) {
        if (!part.isBlank()) {
          out.add(part.strip());
        }
      }
    }
    return out;
  }

  private static boolean looksNumeric(String entry) {
    return entry.matches("[0-9.]+");
  }

  private static boolean isHostName(String entry) {
    String h = entry.endsWith(".") ? entry.substring(0, entry.length() - 1) : entry;
    return h.length() <= 253
        && h.matches(
            "(?i)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*")
        && !IpLiteral.isLiteral(h);
  }

  private static String normalHost(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }

  /**
   * Of {@code grant}, what this policy (a ceiling) allows too: its blocks that lie inside one of
   * this policy's blocks, and its host names this policy lists. What a namespace's callbacks may
   * reach is the deployment's policy restricting the namespace's grant, so a grant never opens more
   * than the deployment does, even after the deployment's list shrank.
   */
  public OutboundPolicy restrict(OutboundPolicy grant) {
    List<AddressBlock> blocks = new ArrayList<>();
    for (AddressBlock block : grant.allowedBlocks) {
      if (allowedBlocks.stream().anyMatch(b -> b.covers(block))) {
        blocks.add(block);
      }
    }
    Set<String> hosts = new LinkedHashSet<>(grant.allowedHosts);
    hosts.retainAll(allowedHosts);
    return new OutboundPolicy(blocks, hosts);
  }

  /**
   * The entries of {@code grant} this policy (a ceiling) does not allow, as written; empty when it
   * allows them all.
   */
  public List<String> notCovered(OutboundPolicy grant) {
    OutboundPolicy allowed = restrict(grant);
    List<String> out = new ArrayList<>();
    grant.allowedBlocks.stream()
        .filter(b -> !allowed.allowedBlocks.contains(b))
        .forEach(b -> out.add(b.toString()));
    grant.allowedHosts.stream().filter(h -> !allowed.allowedHosts.contains(h)).forEach(out::add);
    return out;
  }

  /** Whether anything is allowed beyond the default. */
  public boolean opensAnything() {
    return !allowedBlocks.isEmpty() || !allowedHosts.isEmpty();
  }

  /** The allowlist, for logs: {@code 127.0.0.1/32, hooks.internal}. */
  public String describe() {
    List<String> all = new ArrayList<>();
    allowedBlocks.forEach(b -> all.add(b.toString()));
    all.addAll(allowedHosts);
    return all.isEmpty() ? "(nothing)" : String.join(", ", all);
  }

  /**
   * Why a connection to {@code address}, which {@code host} (a name or the address itself) resolved
   * to, is refused: {@code "127.0.0.1, a loopback address"}; empty when it may be made.
   */
  public Optional<String> refusal(String host, InetAddress address) {
    if (host != null && allowedHosts.contains(normalHost(strip(host)))) {
      return Optional.empty();
    }
    Optional<String> kind = SpecialAddresses.kind(address);
    if (kind.isEmpty() || allowed(address)) {
      return Optional.empty();
    }
    Optional<InetAddress> embedded = SpecialAddresses.embeddedIpv4(address);
    if (embedded.isPresent() && allowed(embedded.get())) {
      return Optional.empty();
    }
    String spelled =
        embedded.isPresent()
            ? address.getHostAddress() + " (" + embedded.get().getHostAddress() + ")"
            : address.getHostAddress();
    return Optional.of(spelled + ", " + article(kind.get()) + " " + kind.get() + " address");
  }

  /**
   * Why the host of a URL is refused before anything is resolved: when it spells an address (in any
   * form, {@link IpLiteral}) that {@link #refusal} refuses. A name is never refused here: it is
   * checked when it is resolved, at connection time.
   */
  public Optional<String> literalRefusal(String host) {
    Optional<InetAddress> address = IpLiteral.parse(host);
    return address.isEmpty() ? Optional.empty() : refusal(null, address.get());
  }

  /**
   * Of the addresses a name resolved to, the refusal to report when all are refused: an IPv4 one
   * first, as people read those more easily.
   */
  public Optional<String> firstRefusal(String host, List<InetAddress> addresses) {
    Optional<String> any = Optional.empty();
    for (InetAddress a : addresses) {
      Optional<String> r = refusal(host, a);
      if (r.isPresent() && a instanceof Inet4Address) {
        return r;
      }
      if (any.isEmpty()) {
        any = r;
      }
    }
    return any;
  }

  private boolean allowed(InetAddress address) {
    for (AddressBlock block : allowedBlocks) {
      if (block.contains(address)) {
        return true;
      }
    }
    return false;
  }

  private static String strip(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static String article(String kind) {
    return "aeiou".indexOf(kind.charAt(0)) >= 0 ? "an" : "a";
  }
}
