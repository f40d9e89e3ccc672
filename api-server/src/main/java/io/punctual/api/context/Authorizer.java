package io.punctual.api.context;

import io.punctual.api.auth.Principal;
import io.punctual.api.problem.Problems;
import io.punctual.common.request.StorableText;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The single place that decides what a request may act on. It resolves the namespace from the
 * {@code Punctual-Namespace} header (default: the configured default namespace) and stores a {@link
 * RequestContext} on the request. API keys and roles will be checked here. Jersey runs it as a
 * filter; the one route served outside Jersey ({@code POST /api/v1/jobs}, see {@link
 * io.punctual.api.jobs.SubmitFastPath}) calls {@link #resolve} with the same header.
 */
@Priority(Priorities.AUTHENTICATION)
public final class Authorizer implements ContainerRequestFilter {
  public static final String NAMESPACE_HEADER = "Punctual-Namespace";

  /** Namespaces end up in Redis keys inside a {...} hash tag, so braces and spaces are out. */
  private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");

  private final String defaultNamespace;

  public Authorizer(String defaultNamespace) {
    this.defaultNamespace = defaultNamespace;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(
        RequestContext.PROPERTY, resolve(request.getHeaderString(NAMESPACE_HEADER)));
  }

  /**
   * Who a request with this {@code Punctual-Namespace} header (null when absent) acts for.
   *
   * @throws io.punctual.api.problem.ProblemException 400 naming the header when it is not valid;
   *     422 when it holds a NUL or a lone surrogate (see {@link StorableText})
   */
  public RequestContext resolve(String namespaceHeader) {
    return new RequestContext(namespaceOf(namespaceHeader), Principal.AUTH_DISABLED);
  }

  /** Whether {@code namespace} is one a request may name (and a Redis hash tag may carry). */
  public static boolean isValidNamespace(String namespace) {
    return namespace != null && NAMESPACE.matcher(namespace).matches();
  }

  private String namespaceOf(String header) {
    if (header == null || header.isBlank()) {
      return defaultNamespace;
    }
    Optional<String> unstorable = StorableText.problem(header);
    if (unstorable.isPresent()) {
      throw Problems.invalid(NAMESPACE_HEADER, unstorable.get());
    }
    String namespace = header.trim();
    if (!isValidNamespace(namespace)) {
      throw Problems.badParameter(
          NAMESPACE_HEADER,
          "must be 1 to 100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
    }
    return namespace;
  }
}
