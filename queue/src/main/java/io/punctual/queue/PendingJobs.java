package io.punctual.queue;

import io.punctual.model.QueueEntry;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Where the {@link Promoter} reads the pending jobs coming due (PostgreSQL, in production). */
@FunctionalInterface
public interface PendingJobs {
  /** Pending jobs with run_at in (after, until], ordered by (run_at, id), after a keyset cursor. */
  List<QueueEntry> due(Instant afterRunAt, UUID afterId, Instant until, int limit);
}
