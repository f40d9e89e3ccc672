package io.punctual.api.namespaces;

import io.punctual.api.context.Authorizer;
import io.punctual.api.context.RequestContext;
import io.punctual.api.problem.Problems;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Optional;

/** How the {@code /namespaces/{name}} routes find the namespace a request names. */
final class NamespaceLookup {
  private NamespaceLookup() {}

  /** The name, if it is a namespace name the caller may act in (else as good as absent). */
  static Optional<String> visible(ContainerRequestContext request, String name) {
    if (!Authorizer.isValidNamespace(name)
        || !RequestContext.of(request).principal().mayActIn(name)) {
      return Optional.empty();
    }
    return Optional.of(name);
  }

  /** The 404 of a namespace that does not exist or that the caller may not see. */
  static RuntimeException noSuch(String name) {
    return Problems.notFound("No namespace " + name + ".");
  }
}
