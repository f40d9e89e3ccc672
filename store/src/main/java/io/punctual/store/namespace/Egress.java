package io.punctual.store.namespace;

import java.util.List;

/**
 * What a namespace's {@code http} callbacks may reach besides the public internet ({@code allow}:
 * CIDR blocks, addresses and host names, granted within the deployment's {@code
 * worker.http.allow}), and whether a callback's 2xx answer is kept as its job's result ({@code
 * keepResponse}).
 */
public record Egress(List<String> allow, boolean keepResponse) {
  /** A namespace without a grant: the public internet only, answers not kept. */
  public static final Egress NONE = new Egress(List.of(), false);

  public Egress {
    allow = allow == null ? List.of() : List.copyOf(allow);
  }
}
