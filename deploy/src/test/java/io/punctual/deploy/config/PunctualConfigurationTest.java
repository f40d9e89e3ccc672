package io.punctual.deploy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.punctual.common.config.InvalidSettingsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole configuration is checked at once: every error is named, not only the first. */
class PunctualConfigurationTest {
  @TempDir Path dir;

  private PunctualConfiguration load(String yaml) throws Exception {
    Path file = dir.resolve("punctual.yml");
    Files.writeString(file, yaml);
    return new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
        .create(
            PunctualConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
        .build(new LayeredConfigSource(), file.toString());
  }

  @Test
  void everyErrorIsReportedTogether() throws Exception {
    PunctualConfiguration config =
        load(
            """
            redis:
              url: bogus://x
              leaseNodes: ["redis://127.0.0.1:6380", "127.0.0.1:6381"]
            queue:
              horizon: PT10S
              promoterSlack: PT30S
            worker:
              concurrency: 0
            reaper:
              rescueAfter: PT5S
            api:
              maxBatchSize: 0
            planner:
              schedules:
                - {initIdentifier: a, name: a, cron: "not a cron", type: noop}
                - {name: b, every: PT1M, type: noop}
            """);

    assertThatThrownBy(config::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> {
              assertThat(e.errors())
                  .anySatisfy(m -> assertThat(m).startsWith("redis.url is not a Redis URL"))
                  .anySatisfy(m -> assertThat(m).startsWith("redis.leaseNodes[1] is not a Redis"))
                  .anySatisfy(m -> assertThat(m).startsWith("queue.horizon must be larger"))
                  .anySatisfy(m -> assertThat(m).startsWith("worker.concurrency must be >= 1"))
                  .anySatisfy(m -> assertThat(m).startsWith("api.maxBatchSize must be positive"))
                  .anySatisfy(
                      m ->
                          assertThat(m)
                              .startsWith("reaper.rescueAfter (PT5S) must be longer than")
                              .contains("worker.heartbeatInterval (PT10S)")
                              .contains("worker.leaseTtl (PT30S)"))
                  .anySatisfy(m -> assertThat(m).startsWith("planner.schedules[0].cron"))
                  .anySatisfy(m -> assertThat(m).startsWith("planner.schedules[1].initIdentifier"))
                  .hasSize(8);
              assertThat(e.getMessage())
                  .startsWith("8 settings are wrong:")
                  .contains("\n  - redis.url is not a Redis URL");
            });
  }

  @Test
  void theAuditSectionReachesTheApiAndTheReaper() throws Exception {
    PunctualConfiguration config =
        load("audit:\n  retention: P30D\n  bufferSize: 500\n  flushInterval: PT0.25S\n");
    config.validate();
    assertThat(config.reaper.auditRetention).isEqualTo(java.time.Duration.ofDays(30));
    assertThat(config.api.audit.bufferSize).isEqualTo(500);
    assertThat(config.api.audit.flushInterval).isEqualTo(java.time.Duration.ofMillis(250));

    assertThatThrownBy(load("audit:\n  retention: PT1H\n  bufferSize: 0\n")::validate)
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("audit.retention must be at least 1 day")
        .hasMessageContaining("audit.bufferSize must be >= 1");
  }

  @Test
  void rescueAfterMustOutlastTheHeartbeatAndTheLease() throws Exception {
    // Below the lease only (PT20S < PT30S): still refused.
    assertThatThrownBy(load("reaper:\n  rescueAfter: PT20S\n")::validate)
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageStartingWith("reaper.rescueAfter (PT20S) must be longer than");
    // Scaled down together, as the fault-injection suite runs them: fine.
    assertThatCode(
            load(
                    """
                    worker: {heartbeatInterval: PT0.5S, leaseTtl: PT2S}
                    reaper: {rescueAfter: PT3S}
                    """)
                ::validate)
        .doesNotThrowAnyException();
  }

  @Test
  void redisUrlsOfEveryKindTheClientTakesAreAccepted() throws Exception {
    assertThatCode(
            load(
                    """
                    redis:
                      url: rediss://user:secret@cache.example:6380/2
                      leaseNodes: ["redis://a:6379", "redis-socket:///tmp/redis.sock"]
                    """)
                ::validate)
        .doesNotThrowAnyException();
  }

  @Test
  void aLockNodesRestartDelayShorterThanTheLeaseIsRefused() throws Exception {
    String nodes = "redis: {leaseNodes: [\"redis://a:6379\", \"redis://b:6379\"],";
    PunctualConfiguration tooShort =
        load(nodes + " leaseNodeRestartDelay: PT10S}\nworker: {leaseTtl: PT30S}\n");

    assertThatThrownBy(tooShort::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e ->
                assertThat(e.errors())
                    .containsExactly(
                        "redis.leaseNodeRestartDelay (PT10S) must be at least worker.leaseTtl"
                            + " (PT30S) (or PT0S for none), or a restarted lock node could grant a"
                            + " lease it forgot"));
    assertThatCode(load(nodes + " leaseNodeRestartDelay: PT0S}\n")::validate)
        .doesNotThrowAnyException();
    assertThatCode(load(nodes + " leaseNodeRestartDelay: PT30S}\n")::validate)
        .doesNotThrowAnyException();
    assertThatThrownBy(load("redis: {leaseNodeRestartDelay: -PT1S}\n")::validate)
        .hasMessageContaining("redis.leaseNodeRestartDelay must be zero or positive");
  }

  @Test
  void aRecoveryHoldBackShorterThanTheClaimsWrittenLateNeedIsRefused() throws Exception {
    assertThatThrownBy(
            load("queue: {recoveryHoldBack: PT2S}\nworker: {claimWriteAfter: PT0.5S}\n")::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e ->
                assertThat(e.errors())
                    .containsExactly(
                        "queue.recoveryHoldBack (PT2S) must be at least 2 × worker.claimWriteAfter"
                            + " + 2 s (PT3S), or after Redis loses its data a job a live worker"
                            + " runs on a claim not yet written could go to a second worker"));
    assertThatCode(
            load("queue: {recoveryHoldBack: PT3S}\nworker: {claimWriteAfter: PT0.5S}\n")::validate)
        .doesNotThrowAnyException();
    assertThatCode(
            load("queue: {recoveryHoldBack: PT0S}\nworker: {claimWriteAfter: PT0S}\n")::validate)
        .as("no worker defers its claims")
        .doesNotThrowAnyException();
    assertThatThrownBy(load("queue: {recoveryHoldBack: -PT1S}\n")::validate)
        .hasMessageContaining("queue.recoveryHoldBack must be >= 0");
  }

  @Test
  void redisClusterSeedsAreAListOrOneCommaSeparatedString() throws Exception {
    PunctualConfiguration list =
        load(
            """
            redis:
              cluster: ["redis://a:7000", "redis://b:7001"]
              queueShards: 6
            """);
    PunctualConfiguration string =
        load(
            """
            redis:
              cluster: "redis://a:7000, redis://b:7001"
            """);
    PunctualConfiguration blank = load("redis: {cluster: \"\"}\n");

    assertThat(list.redis.cluster).containsExactly("redis://a:7000", "redis://b:7001");
    assertThat(list.redis.queueShards).isEqualTo(6);
    assertThat(string.redis.cluster).containsExactly("redis://a:7000", "redis://b:7001");
    assertThat(blank.redis.isCluster()).isFalse();
    assertThatCode(list::validate).doesNotThrowAnyException();
    assertThatThrownBy(
            load(
                    """
                    redis:
                      cluster: ["redis://a:7000", "bogus://x"]
                      queueShards: 0
                    """)
                ::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e ->
                assertThat(e.errors())
                    .anySatisfy(m -> assertThat(m).startsWith("redis.cluster[1] is not a Redis"))
                    .contains("redis.queueShards must be between 1 and 64"));
  }

  @Test
  void aBadHttpAllowEntryIsReportedWithTheOthers() throws Exception {
    PunctualConfiguration config =
        load(
            """
            worker:
              concurrency: 0
              http:
                allow: ["127.0.0.1/32", "10.0.0.0/33", "hooks.internal"]
            """);

    assertThatThrownBy(config::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e ->
                assertThat(e.errors())
                    .containsExactlyInAnyOrder(
                        "worker.concurrency must be >= 1",
                        "worker.http.allow: \"10.0.0.0/33\" has a prefix length that is not a"
                            + " number from 0 to 32"));
  }

  @Test
  void theApiRefusesCallbackUrlsByTheWorkersAllowlist() throws Exception {
    String schedule =
        """
        planner:
          schedules:
            - {initIdentifier: ping, name: ping, every: PT1M, type: http,
               callback: {url: "http://127.0.0.1:9000/ping"}}
        """;
    PunctualConfiguration closed = load(schedule);
    PunctualConfiguration open = load(schedule + "worker:\n  http:\n    allow: 127.0.0.1/32\n");

    assertThatThrownBy(closed::validate)
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("planner.schedules[0].callback.url")
        .hasMessageContaining("127.0.0.1, a loopback address");
    assertThatCode(open::validate).doesNotThrowAnyException();
    assertThat(open.api.callbackPolicy.describe()).isEqualTo("127.0.0.1/32");
    assertThat(closed.api.callbackPolicy.opensAnything()).isFalse();
  }
}
