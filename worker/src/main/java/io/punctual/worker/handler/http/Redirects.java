package io.punctual.worker.handler.http;

import io.punctual.handler.NonRetryableException;
import io.punctual.outbound.OutboundResponse;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * How the {@code http} handler follows redirects: at most {@link #MAX} hops, each one sent through
 * the same guarded client (so a hop to a refused address fails the attempt like the first request
 * would). 307 and 308 repeat the POST with its body; 301, 302 and 303 continue with a GET (as
 * browsers and the JDK's client do). Never from https to http. The callback's own headers ({@code
 * callback.headers}, which may carry credentials) go to the callback's origin only.
 */
final class Redirects {
  /** Most redirects followed for one attempt. */
  static final int MAX = 5;

  private static final Set<Integer> STATUSES = Set.of(301, 302, 303, 307, 308);

  private Redirects() {}

  /** Whether {@code response} asks to go elsewhere. */
  static boolean isRedirect(OutboundResponse response) {
    return STATUSES.contains(response.status()) && response.location().isPresent();
  }

  /** Whether the hop after {@code status} keeps the method and body (307, 308). */
  static boolean keepsMethod(int status) {
    return status == 307 || status == 308;
  }

  /** Where {@code response}, an answer from {@code from}, sends the callback next. */
  static URI next(URI from, OutboundResponse response) throws NonRetryableException {
    String location = response.location().orElseThrow();
    URI to;
    try {
      to = from.resolve(new URI(location.strip())).normalize();
    } catch (URISyntaxException | IllegalArgumentException e) {
      // Not chained: the parser's message repeats the Location, credentials and all.
      throw new NonRetryableException(
          "callback answered HTTP " + response.status() + " with an invalid Location");
    }
    String scheme = to.getScheme() == null ? "" : to.getScheme().toLowerCase(Locale.ROOT);
    if (to.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
      throw new NonRetryableException(
          "callback answered HTTP "
              + response.status()
              + " to a Location that is not an http(s) URL; not followed");
    }
    if (to.getRawUserInfo() != null) {
      throw new NonRetryableException(
          "callback answered HTTP "
              + response.status()
              + " to a Location with credentials ("
              + origin(to)
              + "); not followed");
    }
    if (from.getScheme().equalsIgnoreCase("https") && scheme.equals("http")) {
      throw new NonRetryableException(
          "callback answered HTTP "
              + response.status()
              + " from https to http ("
              + origin(to)
              + "); not followed");
    }
    return to;
  }

  /** Whether {@code a} and {@code b} have the same scheme, host and port. */
  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  /** {@code scheme://host:port} of {@code uri}, for messages (no path, query or credentials). */
  static String origin(URI uri) {
    return uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost() + ":" + port(uri);
  }

  private static int port(URI uri) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    return uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }
}
