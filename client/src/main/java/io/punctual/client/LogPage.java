package io.punctual.client;

import java.time.Instant;
import java.util.List;

/**
 * A page of an attempt's log lines, in order ({@link PunctualClient#logs}): {@code attempt} is null
 * for a job that never ran; {@code next} is the {@code after} of the next read.
 */
public record LogPage(String jobId, Integer attempt, List<Line> lines, int next) {

  public LogPage {
    lines = lines == null ? List.of() : List.copyOf(lines);
  }

  /** A line: its number in the attempt (from 1), when it was logged, its text. */
  public record Line(int seq, Instant at, String line) {}
}
