package io.punctual.planner.support;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Planner;
import io.punctual.planner.plan.PlannerWiring;
import io.punctual.queue.Stores;
import io.punctual.queue.testing.TestStack;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.schedule.store.ScheduleJobs;
import io.punctual.store.testing.TestClock;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A planner's world against real PostgreSQL and Redis (its own database and key prefix): the
 * stores, the schedule definitions, settings to adjust before {@link #planner()}, and reads for
 * asserts.
 */
public final class PlannerFixture implements AutoCloseable {
  public final TestClock clock;
  public final TestStack stack;
  public final Stores stores;
  public final ScheduleDefinitions schedules;
  public final PlannerSettings settings = new PlannerSettings();
  public final MetricRegistry metrics = new MetricRegistry();

  public PlannerFixture(TestClock clock) {
    this.clock = clock;
    this.stack = new TestStack(clock);
    this.stores =
        new Stores(stack.postgres, stack.redisSettings, stack.queueSettings, clock, "planner");
    this.schedules =
        new ScheduleDefinitions(
            stores.database().jdbi(),
            new ScheduleJobs(
                stores.database().jdbi(), stores.submissions(), stores.queries(), clock),
            clock);
  }

  public Planner planner() {
    return PlannerWiring.planner(stores, settings, metrics);
  }

  /** Another planner process: its own connections, the same database, Redis and clock. */
  public Stores otherProcess() {
    return otherProcess(clock);
  }

  /** Another planner process reading {@code processClock} (the same database and Redis). */
  public Stores otherProcess(Clock processClock) {
    return new Stores(
        stack.postgres, stack.redisSettings, stack.queueSettings, processClock, "planner-2");
  }

  /** A planner of its own over {@code processStores} (from {@link #otherProcess}). */
  public Planner planner(Stores processStores, MetricRegistry processMetrics) {
    return PlannerWiring.planner(processStores, settings, processMetrics);
  }

  private record JobKey(String namespace, UUID id) {}

  /** The schedule's jobs (in its namespace, whichever), oldest occurrence first. */
  public List<Job> jobsOf(UUID scheduleId) {
    return stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT namespace, id FROM jobs WHERE schedule_id = :id"
                            + " ORDER BY occurrence_at NULLS LAST, id")
                    .bind("id", scheduleId)
                    .map((rs, ctx) -> new JobKey(rs.getString(1), rs.getObject(2, UUID.class)))
                    .list())
        .stream()
        .map(k -> stores.queries().find(k.namespace(), k.id()).orElseThrow())
        .toList();
  }

  public List<Instant> occurrencesOf(UUID scheduleId, JobState status) {
    return jobsOf(scheduleId).stream()
        .filter(j -> status == null || j.status() == status)
        .map(Job::occurrenceAt)
        .toList();
  }

  /** Fire times on record with an outcome ('job', 'skipped_overlap', 'missed', 'skipped_quota'). */
  public List<Instant> recorded(UUID scheduleId, String outcome) {
    return stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT fire_at FROM schedule_occurrences"
                            + " WHERE schedule_id = :id AND outcome = :outcome ORDER BY fire_at")
                    .bind("id", scheduleId)
                    .bind("outcome", outcome)
                    .mapTo(Instant.class)
                    .list());
  }

  /**
   * Fire times on record as jobs that do not have exactly one job of that schedule and occurrence
   * (the job the record names), and jobs of an occurrence with no such record: empty when each
   * occurrence became exactly one job.
   */
  public List<String> occurrencesWithoutExactlyOneJob() {
    return stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 'record ' || o.schedule_id || ' ' || o.fire_at || ': '"
                            + " || count(j.id) || ' jobs' FROM schedule_occurrences o"
                            + " LEFT JOIN jobs j ON j.schedule_id = o.schedule_id"
                            + " AND j.occurrence_at = o.fire_at"
                            + " WHERE o.outcome = 'job'"
                            + " GROUP BY o.schedule_id, o.fire_at, o.job_id"
                            + " HAVING count(j.id) <> 1 OR bool_or(j.id <> o.job_id)"
                            + " UNION ALL"
                            + " SELECT 'job ' || j.id || ' without its record' FROM jobs j"
                            + " WHERE j.occurrence_at IS NOT NULL AND NOT EXISTS ("
                            + " SELECT 1 FROM schedule_occurrences o WHERE o.schedule_id ="
                            + " j.schedule_id AND o.fire_at = j.occurrence_at AND o.job_id = j.id)")
                    .mapTo(String.class)
                    .list());
  }

  /** Queued in Redis (any score), in the namespace and priority the fixtures use. */
  public boolean queued(UUID jobId) {
    return stack
            .redis
            .sync()
            .zscore(
                stack.keys.queue("default", io.punctual.model.Priority.NORMAL), jobId.toString())
        != null;
  }

  @Override
  public void close() {
    stores.close();
    stack.close();
  }
}
