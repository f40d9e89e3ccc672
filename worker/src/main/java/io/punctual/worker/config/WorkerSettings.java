package io.punctual.worker.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.common.outbound.OutboundPolicy;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  /** Timeout of jobs that have none of their own; null means no timeout. */
  @JsonProperty public Duration defaultTimeout;

  /** Finished attempts are written in batches at most this far apart. */
  @JsonProperty public Duration completionFlushInterval = Duration.ofMillis(2);

  /** A batch of finished attempts is written at once when it reaches this size. */
  @JsonProperty public int completionBatchSize = 500;

  /** Settings of the built-in {@code http} handler. */
  @JsonProperty public Http http = new Http();

  /** Settings of the built-in {@code http} handler. */
  public static class Http {
    /**
     * Secrets that sign callbacks the Standard Webhooks way ({@code webhook-signature}): each
     * {@code whsec_} and the base64 of at least 24 random bytes. Every one listed signs every
     * callback (the signatures space-separated), so a new secret can be added before receivers know
     * it and the old one removed after they all switched. Empty: callbacks are not signed. A YAML
     * list, or one string of comma-separated entries (env {@code PUNCTUAL_HTTP_SIGNING_SECRETS}).
     * Write-only: never serialized back out.
     */
    @JsonIgnore public List<String> signingSecrets = new ArrayList<>();

    /** Time allowed to open a connection to a callback URL. */
    @JsonProperty public Duration connectTimeout = Duration.ofSeconds(5);

    /**
     * Time allowed for a whole callback exchange, redirects and reading the answer included (also
     * capped by the job's deadline); also the longest wait for any one read.
     */
    @JsonProperty public Duration requestTimeout = Duration.ofSeconds(30);

    /**
     * Most bytes of a callback's answer read; the rest is not read (the connection is dropped). A
     * 2xx answer longer than this stores no result; an error answer appears in {@code lastError} as
     * an excerpt of at most 200 characters anyway.
     */
    @JsonProperty public int maxResponseBytes = 65_536;

    /**
     * What callbacks may reach besides the public internet: CIDR blocks ({@code 10.1.0.0/16},
     * {@code 127.0.0.1/32}, {@code fd00::/8}), single addresses and host names (any address the
     * name resolves to). Loopback, private, link-local, unspecified, multicast and reserved
     * addresses are refused otherwise. The API refuses callback URLs that spell a refused address
     * by the same list. A YAML list, or one string of comma-separated entries (env {@code
     * PUNCTUAL_HTTP_ALLOW}).
     */
    @JsonIgnore public List<String> allow = new ArrayList<>();

    @JsonProperty("allow")
    public List<String> getAllow() {
      return allow;
    }

    /** A list of strings, or one string (entries separated by commas); null or blank: none. */
    @JsonProperty("allow")
    public void setAllow(JsonNode value) {
      allow = split(value);
    }

    /** A list of strings, or one string (entries separated by commas); null or blank: none. */
    @JsonProperty(value = "signingSecrets", access = JsonProperty.Access.WRITE_ONLY)
    public void setSigningSecrets(JsonNode value) {
      signingSecrets = split(value);
    }

    /**
     * The secrets {@link #signingSecrets} spell.
     *
     * @throws InvalidSettingsException naming (by position, never by value) each entry that is not
     *     a Standard Webhooks secret
     */
    public List<SigningSecret> signingKeys() {
      SettingsErrors errors = new SettingsErrors();
      List<SigningSecret> keys = signingKeys(errors);
      errors.throwIfAny();
      return keys;
    }

    List<SigningSecret> signingKeys(SettingsErrors errors) {
      List<SigningSecret> keys = new ArrayList<>();
      List<String> entries = signingSecrets == null ? List.of() : signingSecrets;
      for (int i = 0; i < entries.size(); i++) {
        var key = SigningSecret.parse(entries.get(i));
        if (key.isPresent()) {
          keys.add(key.get());
        } else {
          errors.add(
              "worker.http.signingSecrets["
                  + i
                  + "] is not a signing secret: it must be "
                  + SigningSecret.FORM);
        }
      }
      return keys;
    }

    /** A list of strings or one string, split at commas (blank entries dropped). */
    private static List<String> split(JsonNode value) {
      List<String> entries = new ArrayList<>();
      if (value != null && value.isArray()) {
        value.forEach(v -> entries.add(v.isTextual() ? v.textValue() : v.toString()));
      } else if (value != null && !value.isNull()) {
        entries.add(value.isTextual() ? value.textValue() : value.toString());
      }
      return OutboundPolicy.split(entries);
    }

    /**
     * The policy {@link #allow} describes.
     *
     * @throws InvalidSettingsException naming each entry that is not a CIDR block, an address or a
     *     host name
     */
    public OutboundPolicy outboundPolicy() {
      SettingsErrors errors = new SettingsErrors();
      OutboundPolicy policy = OutboundPolicy.parse(allow, "worker.http.allow", errors);
      errors.throwIfAny();
      return policy;
    }
  }

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
    errors.positive(maxIdleWait, "worker.maxIdleWait");
    errors.positive(completionFlushInterval, "worker.completionFlushInterval");
    requireUpToASecond(errors, claimAhead, "worker.claimAhead");
    requireUpToASecond(errors, claimGather, "worker.claimGather");
    errors.require(
        shutdownGrace != null && !shutdownGrace.isNegative(), "worker.shutdownGrace must be >= 0");
    if (heartbeatInterval != null && leaseTtl != null) {
      errors.require(
          heartbeatInterval.compareTo(leaseTtl) < 0,
          "worker.heartbeatInterval must be shorter than worker.leaseTtl");
    }
    errors.require(
        defaultTimeout == null || defaultTimeout.isPositive(),
        "worker.defaultTimeout must be positive (or absent)");
    if (http == null) {
      errors.add("worker.http must be set");
    } else {
      errors.positive(http.connectTimeout, "worker.http.connectTimeout");
      errors.positive(http.requestTimeout, "worker.http.requestTimeout");
      errors.require(http.maxResponseBytes >= 1, "worker.http.maxResponseBytes must be >= 1");
      OutboundPolicy.parse(http.allow, "worker.http.allow", errors);
      http.signingKeys(errors);
    }
  }

  private static void requireUpToASecond(SettingsErrors errors, Duration d, String name) {
    errors.require(
        d != null && !d.isNegative() && d.compareTo(Duration.ofSeconds(1)) <= 0,
        name + " must be between PT0S and PT1S");
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
