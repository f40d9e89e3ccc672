package io.punctual.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.config.InvalidSettingsException;
import io.punctual.model.Priority;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PropertiesCheckTest {

  @Test
  void theYamlsNamesBecomeTheProperties() {
    assertThat(
            PropertiesCheck.propertyNames(
                "worker.livenessTtl must be at least twice worker.livenessInterval"))
        .isEqualTo(
            "punctual.worker.liveness-ttl must be at least twice punctual.worker.liveness-interval");
    assertThat(PropertiesCheck.propertyNames("worker.concurrency must be >= 1"))
        .isEqualTo("punctual.worker.concurrency must be >= 1");
    assertThat(PropertiesCheck.propertyNames("redis.cluster[1] is required"))
        .isEqualTo("punctual.redis.cluster[1] is required");
    assertThat(
            PropertiesCheck.propertyNames("queue.horizon must be larger than queue.promoterSlack"))
        .isEqualTo("punctual.queue.horizon must be larger than punctual.queue.promoter-slack");
  }

  @Test
  void aRecoveryHoldBackShorterThanTheClaimsWrittenLateNeedIsNamed() {
    PunctualProperties properties = new PunctualProperties();
    assertThat(PropertiesCheck.worker(properties).claimWriteAfter)
        .isEqualTo(Duration.ofMillis(250));
    properties.getWorker().setClaimWriteAfter(Duration.ofSeconds(1));

    assertThatThrownBy(() -> PropertiesCheck.worker(properties))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining(
            "punctual.queue.recovery-hold-back (PT3S) must be at least 2 ×"
                + " punctual.worker.claim-write-after + 2 s (PT4S)");
    properties.getQueue().setRecoveryHoldBack(Duration.ofSeconds(4));
    assertThat(PropertiesCheck.worker(properties).claimWriteAfter).isEqualTo(Duration.ofSeconds(1));
    assertThat(PropertiesCheck.stores(properties).queue().recoveryHoldBack)
        .isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void theOutboxNeedsAnHttpApiAndNamesEachWrongRelaySetting() {
    OutboxProperties outbox = new OutboxProperties();
    assertThatThrownBy(() -> PropertiesCheck.outbox(outbox))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("punctual.outbox.api-url is required");
    outbox.setRelay(false); // an instance that only writes rows needs no API
    assertThat(PropertiesCheck.outbox(outbox).apiUrl()).isNull();
    outbox.setApiUrl("punctual:8080"); // but one given must still be an HTTP URL
    assertThatThrownBy(() -> PropertiesCheck.outbox(outbox))
        .hasMessageContaining("punctual.outbox.api-url must be an http:// or https:// URL");
    outbox.setRelay(true);
    outbox.setApiUrl("http://punctual:8080");
    PropertiesCheck.Outbox ok = PropertiesCheck.outbox(outbox);
    assertThat(ok.apiUrl()).hasToString("http://punctual:8080");
    assertThat(ok.relay()).isEqualTo(io.punctual.app.outbox.OutboxRelaySettings.DEFAULTS);

    outbox.setApiUrl("punctual:8080");
    outbox.setPollInterval(null);
    assertThatThrownBy(() -> PropertiesCheck.outbox(outbox))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("punctual.outbox.api-url must be an http:// or https:// URL")
        .hasMessageContaining("punctual.outbox.poll-interval is required");
    outbox.setApiUrl("https://punctual");
    outbox.setPollInterval(Duration.ofMillis(200));
    outbox.setFirstBackoff(Duration.ofSeconds(10));
    outbox.setMaxBackoff(Duration.ofSeconds(1));
    assertThatThrownBy(() -> PropertiesCheck.outbox(outbox))
        .hasMessageContaining(
            "punctual.outbox.max-backoff must be at least punctual.outbox.first-backoff");
  }

  @Test
  void theDefaultsAreTheYamlsAndTheNamespaceIsPunctualNamespaceUnlessNamed() {
    PunctualProperties properties = new PunctualProperties();
    properties.setNamespace("billing");
    WorkerSettings yaml = new WorkerSettings();
    WorkerSettings bound = PropertiesCheck.worker(properties);
    assertThat(bound.namespaces).containsExactly("billing");
    assertThat(bound)
        .usingRecursiveComparison()
        .ignoringFields("workerId", "namespaces")
        .isEqualTo(yaml);
    properties.getWorker().setNamespaces(List.of("a", "b"));
    properties.getWorker().setDefaultTimeout(Duration.ofMinutes(5));
    bound = PropertiesCheck.worker(properties);
    assertThat(bound.namespaces).containsExactly("a", "b");
    assertThat(bound.defaultTimeout).isEqualTo(Duration.ofMinutes(5));

    PropertiesCheck.Stores stores = PropertiesCheck.stores(new PunctualProperties());
    assertThat(stores.redis()).usingRecursiveComparison().isEqualTo(new RedisSettings());
    assertThat(stores.queue()).usingRecursiveComparison().isEqualTo(new QueueSettings());
  }

  @Test
  void redisAndQueuePropertiesReachTheirSettingsAndWrongOnesAreNamed() {
    PunctualProperties properties = new PunctualProperties();
    properties.getRedis().setQueueShards(4);
    properties.getRedis().setCluster(List.of("redis://10.0.0.1:7000", "redis://10.0.0.2:7000"));
    properties.getQueue().setHorizon(Duration.ofMinutes(2));
    properties.getQueue().setWeights(Map.of("low", 3));
    PropertiesCheck.Stores stores = PropertiesCheck.stores(properties);
    assertThat(stores.redis().queueShards).isEqualTo(4);
    assertThat(stores.redis().cluster).hasSize(2);
    assertThat(stores.queue().horizon).isEqualTo(Duration.ofMinutes(2));
    assertThat(stores.queue().weightOf(Priority.LOW)).isEqualTo(3);
    assertThat(stores.queue().weightOf(Priority.CRITICAL)).isEqualTo(8);

    properties.getRedis().setQueueShards(0);
    properties.getQueue().setPromoterSlack(Duration.ofMinutes(5));
    properties.getQueue().setWeights(Map.of("urgent", 2));
    assertThatThrownBy(() -> PropertiesCheck.stores(properties))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("punctual.redis.queue-shards must be between 1 and 64")
        .hasMessageContaining(
            "punctual.queue.horizon must be larger than punctual.queue.promoter-slack")
        .hasMessageContaining("punctual.queue.weights.urgent is not a priority");
  }

  @Test
  void callbackAllowReachesTheJobDefaultsAndAWrongEntryIsNamedByItsProperty() {
    PunctualProperties properties = new PunctualProperties();
    assertThat(PropertiesCheck.jobDefaults(properties).callbackAllow()).isEmpty();

    properties.setCallbackAllow(List.of("10.0.0.0/8, hooks.internal"));
    assertThat(PropertiesCheck.jobDefaults(properties).callbackAllow())
        .containsExactly("10.0.0.0/8", "hooks.internal");

    properties.setCallbackAllow(List.of("10.0.0.0/8", "not a host!"));
    assertThatThrownBy(() -> PropertiesCheck.jobDefaults(properties))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("punctual.callback-allow: \"not a host!\" is not a CIDR block")
        .hasMessageNotContaining("callbackAllow");
  }
}
