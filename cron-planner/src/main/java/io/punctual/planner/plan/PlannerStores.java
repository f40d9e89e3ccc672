package io.punctual.planner.plan;

import io.punctual.queue.ReadyQueue;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.store.PartitionManager;
import java.time.Duration;

/**
 * Where a planner reads and writes: the schedules, their occurrences and jobs, the planners'
 * liveness and the jobs' partitions in PostgreSQL; the ready queue that jobs due within {@code
 * queueHorizon} go to after the commit; the namespaces' rate buckets their jobs are charged to.
 */
public record PlannerStores(
    ScheduleDefinitions definitions,
    OccurrenceWriter occurrences,
    PlannerLiveness liveness,
    PartitionManager partitions,
    ReadyQueue queue,
    Duration queueHorizon,
    RateDebts rateDebts) {}
