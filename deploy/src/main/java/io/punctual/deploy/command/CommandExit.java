package io.punctual.deploy.command;

/**
 * Ends a command with a given exit status after it has told the user why (the message is printed as
 * is, without a stack trace).
 */
public final class CommandExit extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public CommandExit(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
