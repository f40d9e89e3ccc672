package io.punctual.api.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.model.Backoff;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.requests.JobFields;
import io.punctual.requests.jobs.SubmitLimits;
import io.punctual.store.config.AuditSettings;
import java.time.Duration;
import java.util.List;

/**
 * Limits and defaults of the REST API (the {@code api} section of the configuration). Mutable
 * public-field bean so Dropwizard's YAML binding and overrides work; every field has a default.
 */
public final class ApiSettings implements ValidatedSettings {
  /** Largest {@code payload} of one job, in bytes of its JSON (413 beyond). */
  @JsonProperty public int maxPayloadBytes = 262_144;

  /** Largest request body, in bytes (413 beyond). Bounds a batch as a whole. */
  @JsonProperty public long maxRequestBytes = 16L * 1024 * 1024;

  /** Most jobs in one {@code POST /jobs/batch} (413 beyond). */
  @JsonProperty public int maxBatchSize = 1000;

  /** Most jobs in one workflow ({@code POST /workflows}), and most entries in one dependsOn. */
  @JsonProperty public int maxWorkflowJobs = 10_000;

  /** {@code maxAttempts} of a job that does not give one. */
  @JsonProperty public int defaultMaxAttempts = 3;

  /** Largest {@code maxAttempts} a job may ask for. */
  @JsonProperty public int maxMaxAttempts = 100;

  /** Priority of a job that does not give one. */
  @JsonIgnore public Priority defaultPriority = Priority.NORMAL;

  /** Backoff of a job that does not give one: exponential PT1S x2, max PT1H, jitter 0.2. */
  @JsonProperty public Backoff defaultBackoff = Backoff.DEFAULT;

  /** Largest {@code limit} of {@code GET /jobs}. */
  @JsonProperty public int maxListLimit = 500;

  /** {@code limit} of {@code GET /jobs} when none is given. */
  @JsonProperty public int defaultListLimit = 50;

  /** Namespace of a request without a {@code Punctual-Namespace} header. */
  @JsonProperty public String defaultNamespace = NewJob.DEFAULT_NAMESPACE;

  /**
   * How long a request waits for Redis (enqueue after submit, remove after cancel, health check).
   * Past it the request goes on without Redis: the promoter and the reaper repair the queue.
   */
  @JsonProperty public Duration redisTimeout = Duration.ofSeconds(2);

  /**
   * How often each API server reads the namespaces again (active or not, quotas, pending counts of
   * those with a maxPending): a change made through another API server shows here within it.
   */
  @JsonProperty public Duration namespaceRefresh = Duration.ofSeconds(1);

  /**
   * Most transactions that single submits ({@code POST /jobs}) run at once. Submits arriving while
   * that many run share the next transaction (group commit): one INSERT, one commit and one Redis
   * enqueue for all of them, each answered once it is committed. 0 gives every submit a transaction
   * of its own. One by default: a group's Redis enqueue runs after its transaction has given the
   * slot on, so one slot is one transaction at a time, and fewer, larger groups cost PostgreSQL and
   * the API less CPU per submit at the same latency (docs/performance-log.md, sixth set).
   */
  @JsonProperty public int submitGroupConcurrency = 1;

  /**
   * Serve a well-formed {@code POST /jobs} outside Jersey (same validation, answers, errors and
   * metrics, at a fraction of the CPU); anything unusual still goes through Jersey. Off: every
   * request goes through Jersey.
   */
  @JsonProperty public boolean submitFastPath = true;

  /** Most jobs one bulk action ({@code POST /api/v1/jobs/bulk}) may act on. */
  @JsonProperty public int bulkMaxJobs = 1_000_000;

  /** Jobs a bulk action acts on per batch (one transition statement, or cancels, per batch). */
  @JsonProperty public int bulkBatchSize = 500;

  /**
   * How long a running bulk action's owner (the API process working on it) may go without finishing
   * a batch before another API process takes the action over and continues it. Each process looks
   * for such actions every half of this. Longer than one batch takes.
   */
  @JsonProperty public Duration bulkStaleAfter = Duration.ofMinutes(1);

  /**
   * How far back the API reads the statistics of every namespace as it starts (StatsWarmup), so
   * that the console's overview and every-namespace ranges within it answer from kept hours on
   * their first call; zero turns it off. At most 31 days (the longest range of {@code /stats}).
   */
  @JsonProperty public Duration statsWarmup = Duration.ofDays(31);

  /**
   * With API keys switched off ({@code auth.enabled: false}): the {@code Host} values, besides this
   * server's own ({@code localhost}, {@code 127.0.0.1}, {@code [::1]} and the address a request
   * arrived on, at the port it arrived on), under which requests that change something are taken;
   * each {@code name} (any port) or {@code name:port}. Not read while keys are on. See {@link
   * AllowedHosts}.
   */
  @JsonProperty public List<String> allowedHosts = List.of();

  /**
   * Reads ({@code GET}) one API key may make per second of one API process, in bursts of twice
   * that; more is a 429 with {@code Retry-After}. Kept in each process (no Redis call per read), so
   * behind N API processes a key may read N times this. Far above the console's polling and a
   * service polling its jobs (the Gatling MixedReadWriteSimulation at its default 100 users a
   * second reads, by its script, about 300 times a second with one key). 0 turns the limit off.
   */
  @JsonProperty public int readsPerSecondPerKey = 1_000;

  /**
   * The longest {@code from}/{@code to} range of a payload search ({@code GET /jobs?payload=}, a
   * bulk action's {@code filter.payload}) while the payload index is off ({@code
   * reaper.payloadIndex}): without the index the search reads every job of its range. With the
   * index any range (or none) is taken.
   */
  @JsonProperty public Duration payloadSearchMaxRange = Duration.ofDays(1);

  /**
   * PostgreSQL cancels any statement of the API's connection pool that runs longer ({@code
   * statement_timeout}, set once per connection): a request that hits it is a 422 {@code
   * query-too-broad} asking to narrow it. The pool's background work (audit writer, bulk actions,
   * namespace refresh, statistics warm-up) runs under it too; workers, planner and reaper have
   * pools of their own without it. Zero: no timeout.
   */
  @JsonProperty public Duration statementTimeout = Duration.ofSeconds(5);

  /** The worker protocol ({@code /api/v1/workers}): remote workers in other languages. */
  @JsonProperty public RemoteWorkerSettings remoteWorkers = new RemoteWorkerSettings();

  /**
   * What a {@code callback.url} may name: not read from the {@code api} section but from {@code
   * worker.http.allow} of the same configuration (the launcher links the two), so that the API
   * refuses at submission exactly the literal addresses the workers would refuse to call.
   */
  @JsonIgnore public OutboundPolicy callbackPolicy = OutboundPolicy.DEFAULT;

  /**
   * How the audit log is written: not read from the {@code api} section but from the {@code audit}
   * section of the same configuration (the launcher links the two).
   */
  @JsonIgnore public AuditSettings audit = new AuditSettings();

  @JsonProperty("defaultPriority")
  public String getDefaultPriorityName() {
    return defaultPriority.wireName();
  }

  @JsonProperty("defaultPriority")
  public void setDefaultPriorityName(String name) {
    defaultPriority =
        Priority.parse(name)
            .orElseThrow(() -> new IllegalArgumentException("unknown priority: " + name));
  }

  /** What one submission (a job, a batch, a workflow) may hold. */
  public SubmitLimits submitLimits() {
    return new SubmitLimits(jobFieldRules(), maxBatchSize, maxWorkflowJobs);
  }

  /** The limits and defaults of a job's fields, wherever a job is described (jobs, schedules). */
  public JobFields.Rules jobFieldRules() {
    return new JobFields.Rules(
        maxPayloadBytes,
        defaultPriority,
        defaultMaxAttempts,
        maxMaxAttempts,
        defaultBackoff,
        callbackPolicy == null ? OutboundPolicy.DEFAULT : callbackPolicy);
  }

  /** Adds every setting that makes no sense to {@code errors}. */
  @Override
  public void validate(SettingsErrors errors) {
    errors.require(maxPayloadBytes > 0, "api.maxPayloadBytes must be positive");
    if (remoteWorkers == null) {
      errors.add("api.remoteWorkers must be set");
    } else {
      remoteWorkers.validate(errors);
    }
    errors.require(maxRequestBytes > 0, "api.maxRequestBytes must be positive");
    errors.require(maxBatchSize > 0, "api.maxBatchSize must be positive");
    errors.require(maxWorkflowJobs > 0, "api.maxWorkflowJobs must be positive");
    errors.require(maxMaxAttempts >= 1, "api.maxMaxAttempts must be >= 1");
    errors.require(
        defaultMaxAttempts >= 1 && defaultMaxAttempts <= maxMaxAttempts,
        "api.defaultMaxAttempts must be between 1 and api.maxMaxAttempts");
    errors.require(maxListLimit >= 1, "api.maxListLimit must be >= 1");
    errors.require(
        defaultListLimit >= 1 && defaultListLimit <= maxListLimit,
        "api.defaultListLimit must be between 1 and api.maxListLimit");
    errors.require(defaultPriority != null, "api.defaultPriority is required");
    errors.require(defaultBackoff != null, "api.defaultBackoff is required");
    errors.require(
        defaultNamespace != null && !defaultNamespace.isBlank(),
        "api.defaultNamespace is required");
    errors.require(submitGroupConcurrency >= 0, "api.submitGroupConcurrency must be >= 0");
    errors.require(
        redisTimeout != null && redisTimeout.isPositive(), "api.redisTimeout must be positive");
    errors.require(
        namespaceRefresh != null && namespaceRefresh.toMillis() > 0,
        "api.namespaceRefresh must be at least 1 ms");
    errors.require(bulkMaxJobs >= 1, "api.bulkMaxJobs must be >= 1");
    errors.require(bulkBatchSize >= 1, "api.bulkBatchSize must be >= 1");
    errors.require(
        bulkStaleAfter != null && bulkStaleAfter.toMillis() >= 2,
        "api.bulkStaleAfter must be at least 2 ms");
    errors.require(
        statsWarmup != null
            && !statsWarmup.isNegative()
            && statsWarmup.compareTo(Duration.ofDays(31)) <= 0,
        "api.statsWarmup must be between 0 and 31 days");
    AllowedHosts.parse(allowedHosts, errors);
    errors.require(
        readsPerSecondPerKey >= 0 && readsPerSecondPerKey <= 1_000_000,
        "api.readsPerSecondPerKey must be between 0 (no limit) and 1000000");
    errors.require(
        payloadSearchMaxRange != null
            && payloadSearchMaxRange.toSeconds() >= 1
            && payloadSearchMaxRange.compareTo(Duration.ofDays(366)) <= 0,
        "api.payloadSearchMaxRange must be between PT1S and P366D");
    errors.require(
        statementTimeout != null
            && (statementTimeout.isZero()
                || (statementTimeout.toMillis() >= 100
                    && statementTimeout.compareTo(Duration.ofHours(1)) <= 0)),
        "api.statementTimeout must be PT0S (none) or between PT0.1S and PT1H");
  }
}
