package io.punctual.deploy.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.core.Configuration;
import io.punctual.alerter.config.AlerterSettings;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.config.AuthSettings;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.deploy.limits.DeclaredLimits;
import io.punctual.deploy.schedules.DeclaredSchedules;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.planner.PlannerSettings;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.reaper.ReaperSettings;
import io.punctual.store.config.AuditSettings;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.config.SecretsSettings;
import io.punctual.worker.config.WorkerSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

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
  @JsonProperty public AuthSettings auth = new AuthSettings();
  @JsonProperty public WorkerSettings worker = new WorkerSettings();
  @JsonProperty public ReaperSettings reaper = new ReaperSettings();
  @JsonProperty public AlerterSettings alerts = new AlerterSettings();
  @JsonProperty public PlannerSettings planner = new PlannerSettings();
  @JsonProperty public AuditSettings audit = new AuditSettings();
  @JsonProperty public SecretsSettings secrets = new SecretsSettings();
  @JsonProperty public PrometheusSettings prometheus = new PrometheusSettings();

  /**
   * Limits declared in the file (each a {@code PUT /api/v1/limits/{name}} body with {@code name}
   * and an optional {@code namespace}), registered by every worker when it starts.
   */
  @JsonProperty public List<ObjectNode> limits = new ArrayList<>();

  /**
   * Where {@code punctual dev} keeps its embedded PostgreSQL and Redis, relative to the working
   * directory unless absolute. Env: {@code PUNCTUAL_DATA_DIR}.
   */
  @JsonProperty public String dataDir = ".punctual-data";

  public Path dataDirPath() {
    return Path.of(dataDir).toAbsolutePath().normalize();
  }

  /**
   * Checks every section before anything starts; throws {@link InvalidSettingsException} naming
   * every setting that makes no sense (each section's own rules, then those across sections). Links
   * the sections that share a setting: the API refuses callback URLs by {@code worker.http.allow}
   * ({@link ApiSettings#callbackPolicy}); the API and the reaper read the {@code audit} section.
   */
  public void validate() {
    SettingsErrors errors = new SettingsErrors();
    linkCallbackPolicy();
    linkAudit();
    if (postgres == null) {
      errors.add("postgres section is missing");
    } else {
      errors.require(postgres.url != null && !postgres.url.isBlank(), "postgres.url is required");
      errors.require(postgres.maxPoolSize >= 1, "postgres.maxPoolSize must be >= 1");
      errors.require(
          postgres.idleInTransactionTimeout == null
              || !postgres.idleInTransactionTimeout.isNegative(),
          "postgres.idleInTransactionTimeout must not be negative (PT0S turns it off)");
    }
    section(errors, redis, "redis", r -> r.validate(errors));
    section(errors, queue, "queue", q -> q.validate(errors));
    section(errors, api, "api", a -> a.validate(errors));
    section(errors, auth, "auth", a -> a.validate(errors));
    section(errors, worker, "worker", w -> w.validate(errors));
    section(errors, reaper, "reaper", r -> r.validate(errors));
    section(errors, alerts, "alerts", a -> a.validate(errors));
    section(errors, planner, "planner", p -> p.validate(errors));
    section(errors, audit, "audit", a -> a.validate(errors));
    section(errors, secrets, "secrets", s -> s.validate(errors));
    section(errors, prometheus, "prometheus", p -> p.validate(errors));
    errors.require(dataDir != null && !dataDir.isBlank(), "dataDir is required");
    rescueAfterOutlastsTheWorkers(errors);
    restartDelayOutlastsTheLease(errors);
    holdBackOutlastsUnwrittenClaims(errors);
    if (api != null && planner != null && planner.schedules != null) {
      try {
        DeclaredSchedules.parse(planner, api, Clock.systemUTC().instant());
      } catch (InvalidSettingsException e) {
        errors.addAll(e.errors());
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    if (api != null) {
      try {
        DeclaredLimits.parse(limits, api.defaultNamespace);
      } catch (InvalidSettingsException e) {
        errors.addAll(e.errors());
      }
    }
    errors.throwIfAny();
  }

  /**
   * The reaper takes a RUNNING attempt back once its worker has been silent for {@code
   * rescueAfter}: at or below a heartbeat interval or a lease, it would take the jobs of workers
   * that are alive. (Checked against this file's {@code worker} section: give the reaper the
   * workers' values.)
   */
  private void rescueAfterOutlastsTheWorkers(SettingsErrors errors) {
    if (reaper == null || worker == null) {
      return;
    }
    Duration rescueAfter = reaper.rescueAfter;
    Duration beat = worker.heartbeatInterval;
    Duration lease = worker.leaseTtl;
    if (rescueAfter == null || beat == null || lease == null || !rescueAfter.isPositive()) {
      return;
    }
    if (rescueAfter.compareTo(beat) <= 0 || rescueAfter.compareTo(lease) <= 0) {
      errors.add(
          "reaper.rescueAfter ("
              + rescueAfter
              + ") must be longer than worker.heartbeatInterval ("
              + beat
              + ") and worker.leaseTtl ("
              + lease
              + "), or the reaper would take back the jobs of workers that are alive");
    }
  }

  /**
   * A lock node back from a restart without its data must sit out at least the longest lease, or it
   * could grant a lease it forgot to a second holder.
   */
  private void restartDelayOutlastsTheLease(SettingsErrors errors) {
    if (redis == null || worker == null || redis.leaseNodes == null || redis.leaseNodes.isEmpty()) {
      return;
    }
    Duration delay = redis.leaseNodeRestartDelay;
    Duration lease = worker.leaseTtl;
    if (delay == null || lease == null || delay.isZero() || delay.isNegative()) {
      return;
    }
    if (delay.compareTo(lease) < 0) {
      errors.add(
          "redis.leaseNodeRestartDelay ("
              + delay
              + ") must be at least worker.leaseTtl ("
              + lease
              + ") (or PT0S for none), or a restarted lock node could grant a lease it forgot");
    }
  }

  /** See {@link io.punctual.worker.config.WorkerSettings#holdBackProblem}. */
  private void holdBackOutlastsUnwrittenClaims(SettingsErrors errors) {
    if (queue != null && worker != null) {
      worker.holdBackProblem(queue.recoveryHoldBack).ifPresent(errors::add);
    }
  }

  /**
   * The API's callback policy from {@code worker.http.allow} (bad entries are errors elsewhere).
   */
  private void linkCallbackPolicy() {
    if (api != null && worker != null && worker.http != null) {
      api.callbackPolicy =
          OutboundPolicy.parse(worker.http.allow, "worker.http.allow", new SettingsErrors());
    }
  }

  /** The {@code audit} section, read by the API (its writer) and the reaper (retention). */
  private void linkAudit() {
    if (audit == null) {
      return;
    }
    if (api != null) {
      api.audit = audit;
    }
    if (reaper != null && audit.retention != null) {
      reaper.auditRetention = audit.retention;
    }
  }

  private static <T> void section(
      SettingsErrors errors, T section, String name, Consumer<T> validate) {
    if (section == null) {
      errors.add(name + " section is missing");
    } else {
      validate.accept(section);
    }
  }
}
