package io.punctual.api.context;

import io.punctual.api.audit.Actor;
import io.punctual.api.audit.AuditFilter;
import io.punctual.api.auth.KeyAuthenticator;
import io.punctual.api.auth.KeyRefusal;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.RefusalPacing;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import io.punctual.model.NamespaceName;
import io.punctual.requests.StorableText;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import java.util.Optional;

/**
 * The single place that decides who a request is and what it may act on. It authenticates the
 * {@code Authorization: Bearer <key>} header (401 without a valid key, unless {@code auth.enabled}
 * is false), resolves the namespace from the {@code Punctual-Namespace} header and checks that the
 * key may act in it (403), then stores a {@link RequestContext} on the request. The permission each
 * route needs is checked next by {@link PermissionFeature}. Every query a resource makes is bound
 * to the context's namespace, so a key never reads or changes another namespace's objects. Jersey
 * runs this as a filter; the one route served outside Jersey ({@code POST /api/v1/jobs}, see {@link
 * io.punctual.api.jobs.SubmitFastPath}) calls {@link #resolve} and {@link #require} itself.
 */
@Priority(Priorities.AUTHENTICATION)
public final class Authorizer implements ContainerRequestFilter {
  public static final String NAMESPACE_HEADER = "Punctual-Namespace";

  private final String defaultNamespace;
  private final KeyAuthenticator authenticator;
  private final RefusalPacing pacing;
  @Context private HttpServletRequest servletRequest;

  /**
   * @param authenticator null when authentication is switched off: every request then acts as
   *     {@link Principal#AUTH_DISABLED}
   * @param pacing holds a 401 of a source that has had its refusals of the moment
   */
  public Authorizer(String defaultNamespace, KeyAuthenticator authenticator, RefusalPacing pacing) {
    this.defaultNamespace = defaultNamespace;
    this.authenticator = authenticator;
    this.pacing = pacing;
  }

  /**
   * Resolves the request's {@link RequestContext}, as {@link #resolve}. A refusal tells the audit
   * log what is known of it first: for a 401 its reason ({@link AuditFilter#refusedAuthentication}:
   * counted per source, not written one by one); for a 403 the key ({@link AuditFilter#identify}).
   */
  @Override
  public void filter(ContainerRequestContext request) {
    String authorization = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    Principal principal;
    try {
      principal = principal(authorization);
    } catch (ProblemException refused) {
      Optional<KeyRefusal> refusal = KeyRefusal.of(refused);
      if (refusal.isPresent()) {
        AuditFilter.refusedAuthentication(request, refusal.get().label());
        pacing.hold(source());
      }
      throw refused;
    }
    try {
      String namespace = namespaceOf(request.getHeaderString(NAMESPACE_HEADER), principal);
      request.setProperty(RequestContext.PROPERTY, new RequestContext(namespace, principal));
    } catch (ProblemException refused) {
      AuditFilter.identify(request, Actor.refused(principal.keyId(), principal.keyName(), null));
      throw refused;
    }
  }

  /** The peer's address, as the audit log names sources. */
  private String source() {
    try {
      return servletRequest == null ? null : servletRequest.getRemoteAddr();
    } catch (RuntimeException outsideARequest) {
      return null;
    }
  }

  private Principal principal(String authorization) {
    return authenticator == null
        ? Principal.AUTH_DISABLED
        : authenticator.authenticate(authorization);
  }

  /**
   * Who a request with these {@code Authorization} and {@code Punctual-Namespace} headers (null
   * when absent) is, and the namespace it acts in.
   *
   * @throws io.punctual.api.problem.ProblemException 401 without a valid key; 400 naming the
   *     namespace header when it is not valid, 422 when it holds a NUL or a lone surrogate (see
   *     {@link StorableText}); 403 when the key may not act in the namespace
   */
  public RequestContext resolve(String authorization, String namespaceHeader) {
    Principal principal = principal(authorization);
    return new RequestContext(namespaceOf(namespaceHeader, principal), principal);
  }

  /**
   * Refuses a key whose role lacks {@code needed}.
   *
   * @throws io.punctual.api.problem.ProblemException 403 when the key's role lacks {@code needed}
   */
  public static void require(RequestContext context, Permission needed) {
    Principal principal = context.principal();
    if (!principal.allows(needed)) {
      throw Problems.forbidden(
          "A "
              + principal.role().wireName()
              + " key may not do this (it needs "
              + needed.name().toLowerCase(java.util.Locale.ROOT)
              + " permission).",
          null);
    }
  }

  /** Whether {@code namespace} is one a request may name (and a Redis hash tag may carry). */
  public static boolean isValidNamespace(String namespace) {
    return NamespaceName.isValid(namespace);
  }

  private String namespaceOf(String header, Principal principal) {
    if (header == null || header.isBlank()) {
      if (principal.mayActIn(defaultNamespace)) {
        return defaultNamespace;
      }
      if (principal.namespaces().size() == 1) {
        return principal.namespaces().get(0);
      }
      throw Problems.forbidden(
          "This key acts in "
              + String.join(", ", principal.namespaces())
              + ": name one in the "
              + NAMESPACE_HEADER
              + " header.",
          NAMESPACE_HEADER);
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
    if (!principal.mayActIn(namespace)) {
      throw Problems.forbidden(
          "This key may not act in namespace " + namespace + ".", NAMESPACE_HEADER);
    }
    return namespace;
  }
}
