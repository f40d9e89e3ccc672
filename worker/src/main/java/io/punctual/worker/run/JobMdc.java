package io.punctual.worker.run;

import io.punctual.model.Job;
import org.slf4j.MDC;

/**
 * Puts job, attempt, worker, namespace and type into the MDC for the log lines about one job (a
 * JSON log layout shows them as fields; see docs/observing.md#json-logs).
 */
public final class JobMdc implements AutoCloseable {
  private JobMdc() {}

  public static JobMdc of(Job job, String workerId) {
    MDC.put("job", job.id().toString());
    MDC.put("attempt", Integer.toString(job.attempt()));
    MDC.put("worker", workerId);
    MDC.put("namespace", job.namespace());
    MDC.put("type", job.type());
    return new JobMdc();
  }

  @Override
  public void close() {
    MDC.remove("job");
    MDC.remove("attempt");
    MDC.remove("worker");
    MDC.remove("namespace");
    MDC.remove("type");
  }
}
