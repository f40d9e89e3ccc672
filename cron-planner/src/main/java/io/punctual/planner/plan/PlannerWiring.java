package io.punctual.planner.plan;

import com.codahale.metrics.MetricRegistry;
import io.punctual.planner.PlannerSettings;
import io.punctual.queue.Stores;
import io.punctual.queue.rate.SubmitRateLimiter;
import io.punctual.schedule.DeclaredSchedule;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.schedule.store.ScheduleJobs;
import java.time.Duration;
import java.util.List;

/**
 * Builds a {@link Planner} over the connections of one process (the launcher, tests, benchmarks).
 */
public final class PlannerWiring {
  /** How long the planner waits for a namespace's rate bucket in Redis. */
  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(2);

  private PlannerWiring() {}

  /** A planner named after this process, with no declared schedules. */
  public static Planner planner(Stores stores, PlannerSettings settings, MetricRegistry metrics) {
    return planner(
        stores, settings, metrics, "planner-" + ProcessHandle.current().pid(), List.of());
  }

  public static Planner planner(
      Stores stores,
      PlannerSettings settings,
      MetricRegistry metrics,
      String holder,
      List<DeclaredSchedule> declared) {
    ScheduleJobs jobs =
        new ScheduleJobs(
            stores.database().jdbi(), stores.submissions(), stores.queries(), stores.clock());
    return new Planner(
        new PlannerStores(
            new ScheduleDefinitions(stores.database().jdbi(), jobs, stores.clock()),
            new OccurrenceWriter(stores.database().jdbi(), jobs),
            new PlannerLiveness(stores.database().jdbi(), settings.misfireThreshold),
            stores.partitions(),
            stores.queue(),
            stores.queueSettings().horizon,
            new RateDebts(
                stores.namespaces(),
                () ->
                    new SubmitRateLimiter(
                        stores.redisClient(), stores.keys(), stores.clock(), REDIS_TIMEOUT))),
        stores.clock(),
        settings,
        metrics,
        holder,
        declared);
  }
}
