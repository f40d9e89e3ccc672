package io.punctual.api.auth;

import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import java.util.Optional;

/**
 * Why {@link KeyAuthenticator} refused a request (always a 401), as the audit log counts refusals:
 * each has its problem, built once, so that a refusal allocates no more than its exception.
 */
public enum KeyRefusal {
  /** No {@code Authorization} header, or a blank one. */
  NO_KEY("no key", "This API needs a key: send Authorization: Bearer <key>.", false),
  /** An {@code Authorization} header that is not {@code Bearer <key>}. */
  NOT_BEARER("not a Bearer key", "Authorization must be Bearer <key>.", true),
  /** A key that is not one (any more): never created, revoked, or malformed. */
  UNKNOWN_KEY("unknown key", "The API key is not valid.", true),
  /** A key past its {@code expiresAt}. */
  EXPIRED_KEY("expired key", "The API key has expired.", true);

  private final String label;

  @SuppressWarnings("ImmutableEnumChecker") // a record of immutable copies, never changed
  private final Problem problem;

  KeyRefusal(String label, String detail, boolean invalidToken) {
    this.label = label;
    this.problem = Problems.unauthorized(detail, invalidToken).problem();
  }

  /** How the audit log names this reason ({@code "unknown key"}). */
  public String label() {
    return label;
  }

  /** A new exception carrying this refusal's problem (no stack trace: cheap to make). */
  ProblemException exception() {
    return new ProblemException(problem);
  }

  /** The refusal {@code e} is, if it is one {@link KeyAuthenticator} threw. */
  public static Optional<KeyRefusal> of(ProblemException e) {
    for (KeyRefusal refusal : values()) {
      if (refusal.problem.equals(e.problem())) {
        return Optional.of(refusal);
      }
    }
    return Optional.empty();
  }
}
