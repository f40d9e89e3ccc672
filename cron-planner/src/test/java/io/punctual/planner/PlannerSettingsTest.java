package io.punctual.planner;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PlannerSettingsTest {
  @Test
  void theDefaultsAreValid() {
    assertThatCode(() -> new PlannerSettings().validate()).doesNotThrowAnyException();
  }

  @Test
  void eachBadSettingIsNamed() {
    PlannerSettings zeroInterval = new PlannerSettings();
    zeroInterval.interval = Duration.ZERO;
    PlannerSettings hugeBatch = new PlannerSettings();
    hugeBatch.batchSize = 100_000;
    PlannerSettings shortRetention = new PlannerSettings();
    shortRetention.lookAhead = Duration.ofHours(13);
    PlannerSettings idleLooksDown = new PlannerSettings();
    idleLooksDown.interval = Duration.ofSeconds(6);

    assertThatThrownBy(zeroInterval::validate).hasMessageContaining("planner.interval");
    assertThatThrownBy(hugeBatch::validate).hasMessageContaining("planner.batchSize");
    assertThatThrownBy(shortRetention::validate)
        .hasMessageContaining("planner.occurrenceRetention");
    assertThatThrownBy(idleLooksDown::validate)
        .hasMessageContaining("planner.misfireThreshold must be at least twice planner.interval");
  }
}
