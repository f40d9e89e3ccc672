package io.punctual.queue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * "Attempt {@code attempt} of job {@code jobId} was cancelled at {@code cancelledAt}", published on
 * the cancel channel once the cancel committed, so the worker running the attempt interrupts its
 * handler at once instead of at its next heartbeat (which stays the fallback: a notice is a hint).
 * Attempt 0 means whichever attempt runs (a workflow's steps, cancelled without their attempts
 * read). One message carries several notices, one per line.
 */
public record CancelNotice(UUID jobId, int attempt, Instant cancelledAt) {

  /** The message for {@code notices}: {@code id:attempt:epochMs} lines. */
  public static String encode(Collection<CancelNotice> notices) {
    StringBuilder out = new StringBuilder();
    for (CancelNotice n : notices) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(n.jobId()).append(':').append(n.attempt()).append(':');
      out.append(n.cancelledAt().toEpochMilli());
    }
    return out.toString();
  }

  /** The notices of a message; lines that are not ours are skipped. */
  public static List<CancelNotice> decode(String message) {
    List<CancelNotice> notices = new ArrayList<>();
    for (String line : message.split("\n", -1)) {
      String[] parts = line.split(":", -1);
      if (parts.length != 3) {
        continue;
      }
      try {
        notices.add(
            new CancelNotice(
                UUID.fromString(parts[0]),
                Integer.parseInt(parts[1]),
                Instant.ofEpochMilli(Long.parseLong(parts[2]))));
      } catch (IllegalArgumentException e) {
        // not one of ours (NumberFormatException is one too)
      }
    }
    return notices;
  }

  /** Whether this notice is for the attempt {@code attempt} of its job. */
  public boolean covers(int attempt) {
    return this.attempt == 0 || this.attempt == attempt;
  }
}
