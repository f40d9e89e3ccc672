package io.punctual.worker.handler.http;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failure of a callback exchange as it may be kept: in {@code lastError}, in the stored stack
 * trace and in logs. Every URL in its messages, and in those of its causes and suppressed
 * exceptions, loses its credentials ({@code user:password@}), query and fragment, which may carry
 * secrets; scheme, host, port and path remain. The class and stack of each original exception are
 * kept, so the trace still says what failed where. An exception none of whose messages holds such a
 * URL is kept as it is (its type included).
 */
final class ScrubbedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Most causes copied; a longer (or cyclic) chain is cut there. */
  private static final int MAX_CAUSES = 8;

  private static final Pattern URL =
      Pattern.compile(
          "(?i)\\b([a-z][a-z0-9+.-]*://)([^\\s/?#]*@)?([^\\s/?#]*)([^\\s?#]*)([?#]\\S*)?");

  private ScrubbedException(Throwable original, int depth) {
    super(text(original.toString()));
    setStackTrace(original.getStackTrace());
    if (depth < MAX_CAUSES) {
      Throwable cause = original.getCause();
      if (cause != null && cause != original) {
        initCause(new ScrubbedException(cause, depth + 1));
      }
      for (Throwable s : original.getSuppressed()) {
        addSuppressed(new ScrubbedException(s, depth + 1));
      }
    }
  }

  /**
   * {@code e} fit to keep: a {@link HttpTimeoutException} stays one (with its own message, which
   * names no URL) so that callers can tell a timeout; anything else becomes a {@link
   * ScrubbedException} whose text is the original's {@code toString()}, scrubbed. {@code e} itself
   * when nothing in it needs scrubbing.
   */
  static IOException of(Throwable e) {
    if (e instanceof IOException io && isClean(e, 0)) {
      return io;
    }
    if (e instanceof HttpTimeoutException timeout) {
      HttpTimeoutException scrubbed = new HttpTimeoutException(text(timeout.getMessage()));
      scrubbed.setStackTrace(timeout.getStackTrace());
      if (timeout.getCause() != null) {
        scrubbed.initCause(new ScrubbedException(timeout.getCause(), 1));
      }
      return scrubbed;
    }
    return new ScrubbedException(e, 0);
  }

  /**
   * Whether no message in {@code t}, its causes and suppressed exceptions changes when scrubbed.
   */
  private static boolean isClean(Throwable t, int depth) {
    if (t == null || depth > MAX_CAUSES) {
      return true;
    }
    String message = t.getMessage();
    if (message != null && !message.equals(text(message))) {
      return false;
    }
    for (Throwable s : t.getSuppressed()) {
      if (!isClean(s, depth + 1)) {
        return false;
      }
    }
    return t.getCause() == t || isClean(t.getCause(), depth + 1);
  }

  /** {@code text} with every URL in it stripped of credentials, query and fragment. */
  static String text(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = URL.matcher(text);
    return m.replaceAll(r -> Matcher.quoteReplacement(r.group(1) + r.group(3) + r.group(4)));
  }

  /**
   * The original's class and scrubbed message, as {@code Throwable.toString()} would show it (what
   * {@code lastError} and stack traces print): overriding {@code getMessage()} instead would put
   * this wrapper's class in front of the original's.
   */
  @SuppressWarnings("OverrideThrowableToString")
  @Override
  public String toString() {
    return getMessage();
  }
}
