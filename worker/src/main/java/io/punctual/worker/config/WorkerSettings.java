package io.punctual.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.outbound.config.HttpSettings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * How a worker claims, runs and reports jobs. Mutable Jackson bean (Dropwizard's {@code worker}
 * section); every field has a default that works.
 */
public class WorkerSettings implements ValidatedSettings {
  /** Name of this worker in leases, job rows and logs; unique per process. */
  @JsonProperty public String workerId = defaultWorkerId();

  /** Namespaces whose queues this worker serves. */
  @JsonProperty public List<String> namespaces = new ArrayList<>(List.of("default"));

  /**
   * Most jobs a worker holds at once, running or claimed ahead of their {@code runAt} (each on its
   * own virtual thread, so a high number is cheap for handlers that wait on I/O; lower it for
   * CPU-bound handlers or a downstream that takes only so many calls). A job claimed ahead holds
   * its slot until it has run, so one worker keeps up with at most about {@code concurrency /
   * (claimAhead + handler time)} jobs per second: 1024 / 100 ms is 10,000/s. It also bounds how
   * many jobs one claim can take.
   */
  @JsonProperty public int concurrency = 1024;

  /** Most jobs taken from Redis in one claim: larger claims cost less per job. */
  @JsonProperty public int claimBatchSize = 512;

  /** Lifetime of a job's Redlock lease; heartbeats renew it. */
  @JsonProperty public Duration leaseTtl = Duration.ofSeconds(30);

  /** How often running attempts are reported alive (and cancellations noticed). */
  @JsonProperty public Duration heartbeatInterval = Duration.ofSeconds(10);

  /**
   * How often this worker reports itself alive in Redis (the live-workers set a reaper watches to
   * rescue a dead worker's attempts within seconds). Its own thread, talking to Redis only.
   */
  @JsonProperty public Duration livenessInterval = Duration.ofSeconds(1);

  /**
   * How long after its last report a worker counts as dead and its attempts are rescued. A pause of
   * the whole process (GC, a slow disk, SIGSTOP) shorter than {@code livenessTtl -
   * livenessInterval} (4 s by default) rescues nothing; a longer one may, and the attempt number
   * then refuses the paused worker's late writes. At least twice {@code livenessInterval}.
   */
  @JsonProperty public Duration livenessTtl = Duration.ofSeconds(5);

  /**
   * How long an attempt of a plain namespace (no limit, no paused type, no running cap) may run
   * before its claim is written to PostgreSQL. Such a claim is read, not written: the worker holds
   * the attempt under its Redlock lease, and an attempt that ends sooner writes its claim and its
   * end in one row version instead of two; one still running after this is written then (and shows
   * in the console as running, gets heartbeats). A cancel reaches such an attempt by its cancel
   * notice, or when its claim's write is refused. PT0S: every claim is written at once. At most
   * PT1S. After Redis loses its data (a restart without persistence, a flush, a failover) the
   * leases that keep other workers off such attempts are gone; the jobs put back from PostgreSQL
   * then wait {@code queue.recoveryHoldBack} (at least twice this plus 2 s), by when a live worker
   * has written its claims (docs/architecture.md).
   */
  @JsonProperty public Duration claimWriteAfter = Duration.ofMillis(250);

  /** How long {@code close()} lets running handlers finish before interrupting them. */
  @JsonProperty public Duration shutdownGrace = Duration.ofSeconds(30);

  /**
   * How long before its due time a job may be claimed. The claim's round trips (Redis, the leases,
   * PostgreSQL's confirmation and its commit) then happen before the job is due, and its handler
   * starts at {@code runAt} itself, not a commit later; a handler never starts before {@code
   * runAt}. While it waits the job is RUNNING, holds a slot and is covered by heartbeats. 0: claim
   * jobs only once they are due. At most PT1S. The default covers a durable commit that waits for a
   * busy disk and a busy core (p99 of 50-100 ms seen at 5,000 jobs/s on two cores); 50 ms, the
   * default until 2026-11-25, let such commits start jobs late.
   */
  @JsonProperty public Duration claimAhead = Duration.ofMillis(100);

  /**
   * While jobs already due wait in the queue (the worker is behind) and fewer slots are free than
   * one claim may take ({@code min(claimBatchSize, concurrency)}), how long the worker may wait for
   * that many to free before it claims again, instead of claiming whatever is free at once. Fewer,
   * larger claims cost the worker, PostgreSQL and Redis less per job; the jobs it holds back are
   * late already. Jobs merely close to due never wait for it. 0: claim whatever is free at once.
   */
  @JsonProperty public Duration claimGather = Duration.ofMillis(2);

  /**
   * How many claims may be between Redis and their start at once: leased and waiting for
   * PostgreSQL's confirmation (a durable commit). Once a claim has waited half of {@code
   * claimAhead} for its commit the worker takes the next due jobs from Redis beside it, so a slow
   * commit delays its own jobs only, not every job that comes due behind it; quick claims stay one
   * at a time (fewer, larger claims cost less per job). 1: always one claim at a time. At most 16.
   */
  @JsonProperty public int claimsInFlight = 2;

  /**
   * How often the worker reads which namespaces are deactivated: the queues of an inactive
   * namespace are not claimed from, and are claimed from again within this long after it is
   * reactivated (or deactivated: jobs claimed meanwhile still run).
   */
  @JsonProperty public Duration namespaceRefresh = Duration.ofSeconds(5);

  /** Longest idle wait between claims; a safety net only, wake-ups normally come sooner. */
  @JsonProperty public Duration maxIdleWait = Duration.ofSeconds(5);

  /**
   * Timeout of jobs that have none of their own: finite, so that no forgotten job holds a slot
   * forever (a namespace's {@code maxTimeout} caps it further for its jobs).
   */
  @JsonProperty public Duration defaultTimeout = Duration.ofHours(1);

  /** Finished attempts are written in batches at most this far apart. */
  @JsonProperty public Duration completionFlushInterval = Duration.ofMillis(2);

  /** A batch of finished attempts is written at once when it reaches this size. */
  @JsonProperty public int completionBatchSize = 500;

  /**
   * What handlers report while they run (progress, log lines) is written at most this far apart:
   * how soon {@code GET /jobs/{id}} and the console see it.
   */
  @JsonProperty public Duration outputFlushInterval = Duration.ofMillis(250);

  /** How many log lines an attempt keeps (0 to 100,000); later lines are dropped. */
  @JsonProperty public int logLinesPerAttempt = 1000;

  /** Settings of the built-in {@code http} handler. */
  @JsonProperty public HttpSettings http = new HttpSettings();

  /** Adds every setting that makes no sense to {@code errors}. */
  @Override
  public void validate(SettingsErrors errors) {
    errors.require(workerId != null && !workerId.isBlank(), "worker.workerId must not be blank");
    errors.require(
        namespaces != null && !namespaces.isEmpty(), "worker.namespaces must not be empty");
    errors.require(concurrency >= 1, "worker.concurrency must be >= 1");
    errors.require(
        namespaceRefresh != null && namespaceRefresh.isPositive(),
        "worker.namespaceRefresh must be positive");
    errors.require(claimBatchSize >= 1, "worker.claimBatchSize must be >= 1");
    errors.require(
        claimsInFlight >= 1 && claimsInFlight <= 16, "worker.claimsInFlight must be 1 to 16");
    errors.require(completionBatchSize >= 1, "worker.completionBatchSize must be >= 1");
    errors.positive(leaseTtl, "worker.leaseTtl");
    errors.positive(heartbeatInterval, "worker.heartbeatInterval");
    errors.positive(livenessInterval, "worker.livenessInterval");
    errors.positive(livenessTtl, "worker.livenessTtl");
    if (livenessInterval != null && livenessTtl != null) {
      errors.require(
          livenessInterval.multipliedBy(2).compareTo(livenessTtl) <= 0,
          "worker.livenessTtl must be at least twice worker.livenessInterval");
    }
    errors.positive(maxIdleWait, "worker.maxIdleWait");
    errors.positive(completionFlushInterval, "worker.completionFlushInterval");
    errors.positive(outputFlushInterval, "worker.outputFlushInterval");
    errors.require(
        logLinesPerAttempt >= 0 && logLinesPerAttempt <= 100_000,
        "worker.logLinesPerAttempt must be 0 to 100000");
    requireUpToASecond(errors, claimAhead, "worker.claimAhead");
    requireUpToASecond(errors, claimWriteAfter, "worker.claimWriteAfter");
    requireUpToASecond(errors, claimGather, "worker.claimGather");
    errors.require(
        shutdownGrace != null && !shutdownGrace.isNegative(), "worker.shutdownGrace must be >= 0");
    if (heartbeatInterval != null && leaseTtl != null) {
      errors.require(
          heartbeatInterval.compareTo(leaseTtl) < 0,
          "worker.heartbeatInterval must be shorter than worker.leaseTtl");
    }
    errors.require(
        defaultTimeout != null && defaultTimeout.isPositive(),
        "worker.defaultTimeout must be positive (jobs that run longer say so with their timeout)");
    if (http == null) {
      errors.add("worker.http must be set");
    } else {
      http.validate(errors);
    }
  }

  private static void requireUpToASecond(SettingsErrors errors, Duration d, String name) {
    errors.require(
        d != null && !d.isNegative() && d.compareTo(Duration.ofSeconds(1)) <= 0,
        name + " must be between PT0S and PT1S");
  }

  /**
   * How much longer than {@code livenessTtl} a dead worker's lease must last for its claims to be
   * held unwritten: the death watch's pass ({@code reaper.deathCheckInterval}, 1 s by default) and
   * a margin for a slow pass on a loaded machine. 2 s was too little there: with leases of 8 s a
   * paused worker's leases lapsed before the death watch wrote its claims, and another worker ran
   * those attempts under the same numbers (FaultInjectionE2E, 2026-11-30).
   */
  public static final Duration DEATH_SEEN_ALLOWANCE = Duration.ofSeconds(5);

  /**
   * Whether plain claims are read and written late ({@code claimWriteAfter} positive): only while a
   * dead worker's lease outlives the time its death takes to be seen ({@code leaseTtl -
   * heartbeatInterval > livenessTtl + 5 s}; 20 s against 10 s by default), so that the death watch,
   * not another worker, finds its unwritten attempts and records them LOST. With shorter leases
   * every claim is written at once.
   */
  public boolean defersClaims() {
    return claimWriteAfter.isPositive()
        && leaseTtl.minus(heartbeatInterval).compareTo(livenessTtl.plus(DEATH_SEEN_ALLOWANCE)) > 0;
  }

  /**
   * After a Redis data loss, jobs put back wait {@code queue.recoveryHoldBack}: a live worker must
   * have written the claims it held unwritten by then. It writes them between {@code
   * claimWriteAfter} and 1.5 times that; the rest covers a commit and a pause.
   *
   * @param holdBack {@code queue.recoveryHoldBack}
   * @return why {@code holdBack} is too short for these settings, or empty
   */
  public Optional<String> holdBackProblem(Duration holdBack) {
    if (holdBack == null || claimWriteAfter == null || !claimWriteAfter.isPositive()) {
      return Optional.empty();
    }
    Duration least = claimWriteAfter.multipliedBy(2).plusSeconds(2);
    if (holdBack.compareTo(least) >= 0) {
      return Optional.empty();
    }
    return Optional.of(
        "queue.recoveryHoldBack ("
            + holdBack
            + ") must be at least 2 × worker.claimWriteAfter + 2 s ("
            + least
            + "), or after Redis loses its data a job a live worker runs on a claim not yet"
            + " written could go to a second worker");
  }

  /** {@code <hostname>-<pid>-<6 random hex digits>}. */
  public static String defaultWorkerId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (Exception e) {
        host = "worker";
      }
    }
    String random = UUID.randomUUID().toString().substring(0, 6);
    return host + "-" + ProcessHandle.current().pid() + "-" + random;
  }
}
