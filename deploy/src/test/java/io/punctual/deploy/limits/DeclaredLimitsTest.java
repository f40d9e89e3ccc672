package io.punctual.deploy.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.json.Json;
import io.punctual.store.limit.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Limits declared in the configuration file: parsed with the API's rules, errors named. */
class DeclaredLimitsTest {
  private static ObjectNode yaml(String json) {
    return (ObjectNode) Json.readTree(json);
  }

  @Test
  void parsesWithTheApisRulesAndTheDefaultNamespace() {
    List<Limit> limits =
        DeclaredLimits.parse(
            List.of(
                yaml(
                    "{\"name\":\"sleepers\",\"type\":\"sleep\",\"key\":\"customerId\","
                        + "\"concurrency\":2,\"rate\":{\"limit\":10,\"period\":\"PT1S\"}}"),
                yaml(
                    "{\"name\":\"mail\",\"namespace\":\"billing\",\"type\":\"mail\",\"concurrency\":1}")),
            "default");
    assertThat(limits).hasSize(2);
    assertThat(limits.get(0).namespace()).isEqualTo("default");
    assertThat(limits.get(0).rate()).isEqualTo(new Limit.Rate(10, Duration.ofSeconds(1), 10));
    assertThat(limits.get(0).declared()).isTrue();
    assertThat(limits.get(1).namespace()).isEqualTo("billing");
  }

  @Test
  void namesEveryBadField() {
    assertThatThrownBy(
            () ->
                DeclaredLimits.parse(
                    List.of(
                        yaml("{\"name\":\"a\",\"type\":\"t\",\"concurrency\":0}"),
                        yaml("{\"type\":\"t\",\"concurrency\":1}")),
                    "default"))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("limits[0].concurrency")
        .hasMessageContaining("limits[1].name");
  }
}
