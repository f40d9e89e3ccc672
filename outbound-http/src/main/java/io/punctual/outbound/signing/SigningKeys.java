package io.punctual.outbound.signing;

import java.util.List;

/**
 * The secrets that sign what a namespace sends out, asked for each delivery: a namespace's
 * deliveries are signed with its own secrets, which another namespace's receiver does not hold.
 */
@FunctionalInterface
public interface SigningKeys {
  /** The active secrets of {@code namespace} (all of them sign, for rotation); empty: none. */
  List<SigningSecret> of(String namespace);

  /** The same secrets for every namespace. */
  static SigningKeys everywhere(List<SigningSecret> secrets) {
    List<SigningSecret> copy = List.copyOf(secrets);
    return namespace -> copy;
  }
}
