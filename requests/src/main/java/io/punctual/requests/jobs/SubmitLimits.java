package io.punctual.requests.jobs;

import io.punctual.requests.JobFields;
import java.util.Objects;

/**
 * What a job submission may hold: the job fields' limits and defaults, the most jobs of a batch
 * ({@code api.maxBatchSize}) and of a workflow ({@code api.maxWorkflowJobs}, also the most a job
 * may wait for). The API's settings give them; a transactional submit in an app gives its own.
 */
public record SubmitLimits(JobFields.Rules rules, int maxBatchSize, int maxWorkflowJobs) {
  public SubmitLimits {
    Objects.requireNonNull(rules, "rules");
    if (maxBatchSize < 1 || maxWorkflowJobs < 1) {
      throw new IllegalArgumentException("maxBatchSize and maxWorkflowJobs must be positive");
    }
  }
}
