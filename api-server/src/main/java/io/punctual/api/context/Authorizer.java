package io.punctual.api.context;

import io.punctual.api.problem.Problems;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.regex.Pattern;

/**
 * The single place that decides what a request may act on. It resolves the namespace from the
 * {@code Punctual-Namespace} header (default: the configured default namespace) and stores a {@link
 * RequestContext} on the request. API keys and roles will be checked here.
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
    request.setProperty(RequestContext.PROPERTY, new RequestContext(namespaceOf(request)));
  }

  /** Whether {@code namespace} is one a request may name (and a Redis hash tag may carry). */
  public static boolean isValidNamespace(String namespace) {
    return namespace != null && NAMESPACE.matcher(namespace).matches();
  }

  private String namespaceOf(ContainerRequestContext request) {
    String header = request.getHeaderString(NAMESPACE_HEADER);
    if (header == null || header.isBlank()) {
      return defaultNamespace;
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
