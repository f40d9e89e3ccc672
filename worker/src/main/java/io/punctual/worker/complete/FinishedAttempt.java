package io.punctual.worker.complete;

import io.punctual.common.job.Completion;
import io.punctual.common.job.Job;
import io.punctual.worker.run.Outcome;

/** An attempt that ended: the job as claimed, how it ended, and what to record. */
public record FinishedAttempt(Job job, Outcome outcome, Completion completion) {}
