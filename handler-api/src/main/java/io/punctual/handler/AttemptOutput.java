package io.punctual.handler;

import io.punctual.model.Job;
import io.punctual.model.Progress;
import java.time.Instant;

/**
 * Where a {@link JobContext} sends what its handler reports while it runs: progress and log lines.
 * The worker's implementation stores them in batches, off the claim and finish paths; {@link #NONE}
 * drops them (a context made outside a worker, in a test).
 */
public interface AttemptOutput {

  /** Drops everything; allows no log line. */
  AttemptOutput NONE =
      new AttemptOutput() {
        @Override
        public void progress(Job job, Progress progress, Instant at) {}

        @Override
        public void log(Job job, int seq, String line, Instant at) {}

        @Override
        public int logLinesPerAttempt() {
          return 0;
        }
      };

  /** The latest progress of the job's current attempt. */
  void progress(Job job, Progress progress, Instant at);

  /** The {@code seq}-th log line (from 1) of the job's current attempt. */
  void log(Job job, int seq, String line, Instant at);

  /** How many lines an attempt may log; later ones are dropped. */
  int logLinesPerAttempt();
}
