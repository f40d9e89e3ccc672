package io.punctual.worker.complete;

import io.punctual.model.Completion;
import io.punctual.model.JobState;
import io.punctual.store.AttemptReadBack;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.run.FinishedAttempt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a batch of results is written again because the try before it failed: which of the attempts
 * the fence refused this time had been written by that earlier try, whose commit went through
 * although its answer was lost (a connection dropped during the commit, the server shut down).
 * Writing the same fenced batch again is harmless, but without this read-back those attempts would
 * be counted as refused (zombie writes) and their retries would not go back into Redis at once.
 */
final class Written {
  private static final Logger log = LoggerFactory.getLogger(Written.class);

  private final AttemptReadBack readBack;
  private final String workerId;

  Written(AttemptReadBack readBack, String workerId) {
    this.readBack = readBack;
    this.workerId = workerId;
  }

  /** The ids of {@code batch}, not in {@code applied}, that an earlier try of it wrote. */
  List<UUID> earlier(List<FinishedAttempt> batch, Set<UUID> applied) {
    Map<UUID, Completion> refused = new HashMap<>();
    List<Attempt> attempts = new ArrayList<>();
    for (FinishedAttempt f : batch) {
      Completion c = f.completion();
      // A cancelled attempt's result never applies: its job left RUNNING before it was written.
      if (!applied.contains(c.jobId()) && c.nextState() != JobState.CANCELLED) {
        refused.put(c.jobId(), c);
        attempts.add(new Attempt(c.jobId(), c.attempt()));
      }
    }
    List<UUID> earlier = new ArrayList<>();
    for (AttemptReadBack.Recorded r : readBack.recorded(attempts)) {
      Completion c = refused.get(r.jobId());
      if (c != null
          && c.attempt() == r.attempt()
          && r.wrote(workerId, c.executionStatus(), c.nextState())) {
        earlier.add(r.jobId());
      }
    }
    if (!earlier.isEmpty()) {
      log.info(
          "{} results were written by a try whose commit seemed to fail worker={}",
          earlier.size(),
          workerId);
    }
    return earlier;
  }
}
