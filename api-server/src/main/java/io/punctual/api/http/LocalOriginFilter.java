package io.punctual.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.api.config.AllowedHosts;
import io.punctual.api.problem.Problem;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * With API keys switched off ({@code auth.enabled: false}) anyone who reaches the API is an admin,
 * so a browser on the same machine or network must not be turned against it by a page elsewhere. A
 * request that changes something ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) is
 * taken only when
 *
 * <ul>
 *   <li>its {@code Host} names this server ({@link AllowedHosts}): otherwise a 403 naming {@code
 *       Host}, which is what a page reaching the API through a name of its own (DNS rebinding)
 *       gets;
 *   <li>it carries a JSON {@code Content-Type} ({@code application/json} or {@code
 *       application/...+json}): otherwise a 415 naming {@code Content-Type}. A page on another site
 *       can send a form or {@code text/plain} without asking, but not JSON: that needs a CORS
 *       preflight, which this API never grants.
 * </ul>
 *
 * A servlet filter ahead of everything else on the application port, the submit fast path and
 * Jersey alike, so no route can be missed; registered only while keys are off. Nothing of the
 * request is echoed in a refusal.
 */
public final class LocalOriginFilter implements Filter {
  public static final String HOST = "Host";
  public static final String CONTENT_TYPE = "Content-Type";

  private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final AllowedHosts hosts;
  private final ObjectMapper mapper;

  public LocalOriginFilter(AllowedHosts hosts, ObjectMapper mapper) {
    this.hosts = hosts;
    this.mapper = mapper;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    Optional<Problem> refusal =
        refusal(
            request.getMethod(),
            Collections.list(request.getHeaders(HOST)),
            request.getHeader(CONTENT_TYPE),
            request.getLocalAddr(),
            request.getLocalPort(),
            request.isSecure());
    if (refusal.isEmpty()) {
      chain.doFilter(req, res);
      return;
    }
    HttpServletResponse response = (HttpServletResponse) res;
    Problem problem = refusal.get().withInstance(request.getRequestURI());
    response.setStatus(problem.status());
    response.setContentType(Problem.MEDIA_TYPE);
    mapper.writeValue(response.getOutputStream(), problem);
  }

  /**
   * Why a request with this method, these {@code Host} headers, this {@code Content-Type} (null:
   * none), arriving on {@code localAddress}:{@code localPort}, is refused; empty when it is taken.
   */
  Optional<Problem> refusal(
      String method,
      List<String> hostHeaders,
      String contentType,
      String localAddress,
      int localPort,
      boolean secure) {
    if (!MUTATING.contains(method.toUpperCase(Locale.ROOT))) {
      return Optional.empty();
    }
    if (hostHeaders.size() != 1
        || !hosts.allows(hostHeaders.get(0), localAddress, localPort, secure)) {
      return Optional.of(
          Problem.of(
                  403,
                  "foreign-host",
                  "Host not allowed",
                  "API keys are off: changes are taken only under a Host naming this server"
                      + " (localhost, 127.0.0.1, [::1] or the address it was reached on, with its"
                      + " port) or one listed in api.allowedHosts.")
              .withField(HOST));
    }
    if (!isJson(contentType)) {
      return Optional.of(
          Problem.of(
                  415,
                  "unsupported-media-type",
                  "Unsupported Media Type",
                  "API keys are off: a request that changes something must be sent as"
                      + " Content-Type: application/json (or another +json type), even without a"
                      + " body.")
              .withField(CONTENT_TYPE));
    }
    return Optional.empty();
  }

  /** {@code application/json} or {@code application/<anything>+json}, whatever its parameters. */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String type =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .strip()
            .toLowerCase(Locale.ROOT);
    return type.equals("application/json")
        || (type.startsWith("application/")
            && type.endsWith("+json")
            && type.length() > "application/+json".length()
            && type.indexOf('/') == type.lastIndexOf('/')
            && type.chars().noneMatch(c -> c <= ' '));
  }
}
