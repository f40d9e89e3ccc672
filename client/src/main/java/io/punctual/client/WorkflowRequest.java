package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A workflow to submit: jobs with unique {@code ref}s, waiting for each other by ref, stored all at
 * once or not at all. With an {@code idempotencyKey}, submitting the same workflow again returns
 * the one stored the first time.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkflowRequest(String idempotencyKey, List<JobRequest> jobs) {
  public WorkflowRequest {
    jobs = List.copyOf(jobs);
  }

  public static WorkflowRequest of(JobRequest... jobs) {
    return new WorkflowRequest(null, List.of(jobs));
  }

  public WorkflowRequest withIdempotencyKey(String key) {
    return new WorkflowRequest(key, jobs);
  }
}
