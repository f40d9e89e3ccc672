package io.punctual.api.problem;

/** Ends a request with a problem response; thrown by resources, filters and parsers. */
public final class ProblemException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient Problem problem;

  public ProblemException(Problem problem) {
    super(problem.title() + ": " + problem.detail(), null, false, false);
    this.problem = problem;
  }

  public Problem problem() {
    return problem;
  }
}
