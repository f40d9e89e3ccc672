package io.punctual.deploy;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.punctual.api.ApiSettings;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.deploy.schedules.DeclaredSchedules;
import io.punctual.planner.PlannerSettings;
import io.punctual.reaper.ReaperSettings;
import io.punctual.worker.WorkerSettings;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Everything one Punctual process reads at start-up: Dropwizard's own sections ({@code server},
 * {@code logging}, {@code metrics}) plus one section per part of Punctual. Defaults come from the
 * bundled {@code punctual.yml} (which reads {@code PUNCTUAL_*} environment variables) and from the
 * settings beans themselves.
 */
public class PunctualConfiguration extends Configuration {
  @JsonProperty public PostgresSettings postgres = new PostgresSettings();
  @JsonProperty public RedisSettings redis = new RedisSettings();
  @JsonProperty public QueueSettings queue = new QueueSettings();
  @JsonProperty public ApiSettings api = new ApiSettings();
  @JsonProperty public WorkerSettings worker = new WorkerSettings();
  @JsonProperty public ReaperSettings reaper = new ReaperSettings();
  @JsonProperty public PlannerSettings planner = new PlannerSettings();

  /**
   * Where {@code punctual dev} keeps its embedded PostgreSQL and Redis, relative to the working
   * directory unless absolute. Env: {@code PUNCTUAL_DATA_DIR}.
   */
  @JsonProperty public String dataDir = ".punctual-data";

  public Path dataDirPath() {
    return Path.of(dataDir).toAbsolutePath().normalize();
  }

  /**
   * Checks every section before anything starts; throws {@link IllegalArgumentException} naming the
   * first setting that makes no sense.
   */
  public void validate() {
    require(postgres != null, "postgres section is missing");
    require(redis != null, "redis section is missing");
    require(queue != null, "queue section is missing");
    require(api != null, "api section is missing");
    require(worker != null, "worker section is missing");
    require(reaper != null, "reaper section is missing");
    require(planner != null, "planner section is missing");
    require(postgres.url != null && !postgres.url.isBlank(), "postgres.url is required");
    require(postgres.maxPoolSize >= 1, "postgres.maxPoolSize must be >= 1");
    require(
        postgres.idleInTransactionTimeout == null
            || !postgres.idleInTransactionTimeout.isNegative(),
        "postgres.idleInTransactionTimeout must not be negative (PT0S turns it off)");
    require(redis.url != null && !redis.url.isBlank(), "redis.url is required");
    require(redis.keyPrefix != null && !redis.keyPrefix.isBlank(), "redis.keyPrefix is required");
    require(dataDir != null && !dataDir.isBlank(), "dataDir is required");
    queue.validate();
    api.validate();
    worker.validate();
    reaper.validate();
    planner.validate();
    DeclaredSchedules.parse(planner, api, Clock.systemUTC().instant());
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
