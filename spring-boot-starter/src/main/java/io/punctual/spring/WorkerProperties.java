package io.punctual.spring;

import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code punctual.worker.*}: the embedded worker, with every setting of the YAML's {@code worker}
 * section that applies to it (not {@code http}: an embedded worker runs no built-in handler) and
 * the same defaults. {@link PropertiesCheck} validates them as the YAML's are, naming the property,
 * when the context starts.
 */
public class WorkerProperties {
  /** The YAML's defaults, read once. */
  private static final WorkerSettings DEFAULTS = new WorkerSettings();

  /** Whether JobHandler beans are run by an embedded worker (only when there are some). */
  private boolean enabled = true;

  /** The namespaces whose jobs it runs; empty: {@code punctual.namespace}. */
  private List<String> namespaces = new ArrayList<>();

  /**
   * Its name in leases, job rows and logs; unset: {@code <host>-<pid>-<random>}, new at each start.
   */
  private String workerId = null;

  /** Most jobs it holds at once, running or claimed ahead ({@code worker.concurrency}). */
  private int concurrency = DEFAULTS.concurrency;

  /** How long stopping the context lets running handlers finish ({@code worker.shutdownGrace}). */
  private Duration shutdownGrace = DEFAULTS.shutdownGrace;

  /** Whether a death watch runs beside it, as beside {@code punctual worker}. */
  private boolean deathWatch = true;

  /** Most jobs taken from Redis in one claim ({@code worker.claimBatchSize}). */
  private int claimBatchSize = DEFAULTS.claimBatchSize;

  /**
   * Claims that may wait for PostgreSQL's confirmation at once, 1 to 16 ({@code
   * worker.claimsInFlight}).
   */
  private int claimsInFlight = DEFAULTS.claimsInFlight;

  /** How long before its due time a job may be claimed, 0 to 1 s ({@code worker.claimAhead}). */
  private Duration claimAhead = DEFAULTS.claimAhead;

  /**
   * How long an attempt runs before its claim is written, 0 to 1 s ({@code worker.claimWriteAfter};
   * 0: at once).
   */
  private Duration claimWriteAfter = DEFAULTS.claimWriteAfter;

  /**
   * How long a worker that is behind may wait to claim a whole batch, 0 to 1 s ({@code
   * worker.claimGather}).
   */
  private Duration claimGather = DEFAULTS.claimGather;

  /** Lifetime of a job's lease, renewed by heartbeats ({@code worker.leaseTtl}). */
  private Duration leaseTtl = DEFAULTS.leaseTtl;

  /**
   * How often running attempts are reported alive; shorter than the lease ({@code
   * worker.heartbeatInterval}).
   */
  private Duration heartbeatInterval = DEFAULTS.heartbeatInterval;

  /** How often the worker reports itself alive in Redis ({@code worker.livenessInterval}). */
  private Duration livenessInterval = DEFAULTS.livenessInterval;

  /**
   * How long after its last report it counts as dead; at least twice the interval ({@code
   * worker.livenessTtl}).
   */
  private Duration livenessTtl = DEFAULTS.livenessTtl;

  /**
   * How often it reads which namespaces are deactivated, and their weights ({@code
   * worker.namespaceRefresh}).
   */
  private Duration namespaceRefresh = DEFAULTS.namespaceRefresh;

  /** Longest idle wait between claims, a safety net ({@code worker.maxIdleWait}). */
  private Duration maxIdleWait = DEFAULTS.maxIdleWait;

  /** Timeout of jobs that give none ({@code worker.defaultTimeout}). */
  private Duration defaultTimeout = DEFAULTS.defaultTimeout;

  /**
   * Finished attempts are written in batches at most this far apart ({@code
   * worker.completionFlushInterval}).
   */
  private Duration completionFlushInterval = DEFAULTS.completionFlushInterval;

  /**
   * A batch of finished attempts is written at once at this size ({@code
   * worker.completionBatchSize}).
   */
  private int completionBatchSize = DEFAULTS.completionBatchSize;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getNamespaces() {
    return namespaces;
  }

  public void setNamespaces(List<String> namespaces) {
    this.namespaces = namespaces;
  }

  public String getWorkerId() {
    return workerId;
  }

  public void setWorkerId(String workerId) {
    this.workerId = workerId;
  }

  public int getConcurrency() {
    return concurrency;
  }

  public void setConcurrency(int concurrency) {
    this.concurrency = concurrency;
  }

  public Duration getShutdownGrace() {
    return shutdownGrace;
  }

  public void setShutdownGrace(Duration shutdownGrace) {
    this.shutdownGrace = shutdownGrace;
  }

  public boolean isDeathWatch() {
    return deathWatch;
  }

  public void setDeathWatch(boolean deathWatch) {
    this.deathWatch = deathWatch;
  }

  public int getClaimBatchSize() {
    return claimBatchSize;
  }

  public void setClaimBatchSize(int claimBatchSize) {
    this.claimBatchSize = claimBatchSize;
  }

  public int getClaimsInFlight() {
    return claimsInFlight;
  }

  public void setClaimsInFlight(int claimsInFlight) {
    this.claimsInFlight = claimsInFlight;
  }

  public Duration getClaimAhead() {
    return claimAhead;
  }

  public void setClaimAhead(Duration claimAhead) {
    this.claimAhead = claimAhead;
  }

  public Duration getClaimWriteAfter() {
    return claimWriteAfter;
  }

  public void setClaimWriteAfter(Duration claimWriteAfter) {
    this.claimWriteAfter = claimWriteAfter;
  }

  public Duration getClaimGather() {
    return claimGather;
  }

  public void setClaimGather(Duration claimGather) {
    this.claimGather = claimGather;
  }

  public Duration getLeaseTtl() {
    return leaseTtl;
  }

  public void setLeaseTtl(Duration leaseTtl) {
    this.leaseTtl = leaseTtl;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getLivenessInterval() {
    return livenessInterval;
  }

  public void setLivenessInterval(Duration livenessInterval) {
    this.livenessInterval = livenessInterval;
  }

  public Duration getLivenessTtl() {
    return livenessTtl;
  }

  public void setLivenessTtl(Duration livenessTtl) {
    this.livenessTtl = livenessTtl;
  }

  public Duration getNamespaceRefresh() {
    return namespaceRefresh;
  }

  public void setNamespaceRefresh(Duration namespaceRefresh) {
    this.namespaceRefresh = namespaceRefresh;
  }

  public Duration getMaxIdleWait() {
    return maxIdleWait;
  }

  public void setMaxIdleWait(Duration maxIdleWait) {
    this.maxIdleWait = maxIdleWait;
  }

  public Duration getDefaultTimeout() {
    return defaultTimeout;
  }

  public void setDefaultTimeout(Duration defaultTimeout) {
    this.defaultTimeout = defaultTimeout;
  }

  public Duration getCompletionFlushInterval() {
    return completionFlushInterval;
  }

  public void setCompletionFlushInterval(Duration completionFlushInterval) {
    this.completionFlushInterval = completionFlushInterval;
  }

  public int getCompletionBatchSize() {
    return completionBatchSize;
  }

  public void setCompletionBatchSize(int completionBatchSize) {
    this.completionBatchSize = completionBatchSize;
  }

  /**
   * The worker's settings: these properties over the YAML's defaults, serving {@code
   * defaultNamespace} when {@code namespaces} is empty. A new {@code workerId} each call unless one
   * is set. Not validated here.
   */
  public WorkerSettings toSettings(String defaultNamespace) {
    WorkerSettings s = new WorkerSettings();
    if (workerId != null) {
      s.workerId = workerId;
    }
    s.namespaces = new ArrayList<>(namespaces.isEmpty() ? List.of(defaultNamespace) : namespaces);
    s.concurrency = concurrency;
    s.shutdownGrace = shutdownGrace;
    s.claimBatchSize = claimBatchSize;
    s.claimsInFlight = claimsInFlight;
    s.claimWriteAfter = claimWriteAfter;
    s.claimAhead = claimAhead;
    s.claimGather = claimGather;
    s.leaseTtl = leaseTtl;
    s.heartbeatInterval = heartbeatInterval;
    s.livenessInterval = livenessInterval;
    s.livenessTtl = livenessTtl;
    s.namespaceRefresh = namespaceRefresh;
    s.maxIdleWait = maxIdleWait;
    s.defaultTimeout = defaultTimeout;
    s.completionFlushInterval = completionFlushInterval;
    s.completionBatchSize = completionBatchSize;
    return s;
  }
}
