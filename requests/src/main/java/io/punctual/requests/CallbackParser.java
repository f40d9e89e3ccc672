package io.punctual.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.outbound.address.OutboundPolicy;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads a {@code callback}: {@code {"url": "https://...", "headers": {"name": "value"}}}. */
public final class CallbackParser {
  /** The fields of a callback object. */
  static final Set<String> FIELDS = Set.of("url", "headers");

  static final int MAX_URL_LENGTH = 2000;
  static final int MAX_HEADERS = 50;

  /** Longest header value: a token or a signature fits, a document does not. */
  static final int MAX_HEADER_VALUE_LENGTH = 4096;

  /** What every read shows instead of a callback header's value (write-only values). */
  public static final String HIDDEN_VALUE = "(hidden)";

  private CallbackParser() {}

  /**
   * The callback as stored ({@code url} and {@code headers}), or null if invalid. A URL whose host
   * is an address {@code policy} refuses, in any spelling ({@code 127.0.0.1}, {@code 2130706433},
   * {@code 0x7f000001}, {@code [::ffff:127.0.0.1]}), is invalid; a host name is not resolved here
   * (the worker checks what it resolves to when it connects).
   */
  public static ObjectNode parse(
      JsonNode value, String path, Violations violations, OutboundPolicy policy) {
    if (!(value instanceof ObjectNode object)) {
      violations.add(path, "must be an object with a url");
      return null;
    }
    Fields f = new Fields(object, path + ".", violations);
    int before = f.errorCount();
    f.rejectUnknown(FIELDS);
    String url = f.string("url", true, MAX_URL_LENGTH);
    if (url != null) {
      urlProblem(url, policy).ifPresent(problem -> f.error("url", problem));
    }
    ObjectNode headers = headers(f);
    if (f.errorCount() > before) {
      return null;
    }
    ObjectNode callback = JsonNodeFactory.instance.objectNode();
    callback.put("url", url);
    callback.set("headers", headers);
    return callback;
  }

  /**
   * What is wrong with {@code url} as a URL Punctual may call (a callback, an alert webhook): not
   * an absolute http(s) URL, credentials in it, or a host spelling an address {@code policy}
   * refuses.
   */
  public static Optional<String> urlProblem(String url, OutboundPolicy policy) {
    Optional<String> refusal = refusal(url, policy);
    if (refusal.isPresent()) {
      return Optional.of(
          "names "
              + refusal.get()
              + ", which callbacks may not reach; allow it with "
              + OutboundPolicy.SETTING);
    } else if (!isHttpUrl(url)) {
      return Optional.of("must be an absolute http or https URL");
    } else if (hasUserInfo(url)) {
      return Optional.of(
          "must not carry credentials (user:password@): put them in a header, whose value"
              + " reads never show");
    }
    return Optional.empty();
  }

  private static ObjectNode headers(Fields f) {
    ObjectNode headers = JsonNodeFactory.instance.objectNode();
    JsonNode value = f.get("headers");
    if (value == null) {
      return headers;
    }
    if (!value.isObject()) {
      f.error("headers", "must be an object of string values");
      return headers;
    }
    if (value.size() > MAX_HEADERS) {
      f.error("headers", "must have at most " + MAX_HEADERS + " entries");
      return headers;
    }
    for (Map.Entry<String, JsonNode> header : value.properties()) {
      String name = header.getKey();
      if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        f.error("headers." + name, "is not a valid header name");
      } else if (!header.getValue().isTextual()) {
        f.error("headers." + name, "must be a string");
      } else if (header.getValue().textValue().matches("(?s).*[\\r\\n].*")) {
        f.error("headers." + name, "must not contain line breaks");
      } else if (header.getValue().textValue().length() > MAX_HEADER_VALUE_LENGTH) {
        f.error("headers." + name, "must be at most " + MAX_HEADER_VALUE_LENGTH + " characters");
      } else if (header.getValue().textValue().equals(HIDDEN_VALUE)) {
        f.error(
            "headers." + name,
            "is the placeholder reads show instead of a header's value: give the value itself");
      } else {
        headers.put(name, header.getValue().textValue());
      }
    }
    return headers;
  }

  /** Why {@code policy} refuses the host of {@code url}, when that host spells an address. */
  private static Optional<String> refusal(String url, OutboundPolicy policy) {
    try {
      URI uri = new URI(url);
      String host = uri.getHost() != null ? uri.getHost() : hostOfAuthority(uri.getRawAuthority());
      return host == null ? Optional.empty() : policy.literalRefusal(host);
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  /**
   * The host of an authority {@link URI} did not read as a server ({@code 0x7f000001}, {@code
   * 127.1}: its last label starts with a digit), which other parsers and resolvers do read.
   */
  private static String hostOfAuthority(String authority) {
    if (authority == null) {
      return null;
    }
    String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
    if (hostPort.startsWith("[") && hostPort.indexOf(']') > 0) {
      return hostPort.substring(0, hostPort.indexOf(']') + 1);
    }
    int colon = hostPort.lastIndexOf(':');
    if (colon >= 0 && !hostPort.endsWith("]") && hostPort.indexOf(':') == colon) {
      hostPort = hostPort.substring(0, colon);
    }
    return hostPort.isEmpty() ? null : hostPort;
  }

  private static boolean hasUserInfo(String url) {
    try {
      return new URI(url).getRawUserInfo() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static boolean isHttpUrl(String url) {
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
