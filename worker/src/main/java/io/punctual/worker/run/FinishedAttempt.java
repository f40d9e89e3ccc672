package io.punctual.worker.run;

import io.punctual.model.Completion;
import io.punctual.model.Job;

/** An attempt that ended: the job as claimed, how it ended, and what to record. */
public record FinishedAttempt(Job job, Outcome outcome, Completion completion) {}
