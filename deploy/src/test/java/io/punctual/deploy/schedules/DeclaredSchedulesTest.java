package io.punctual.deploy.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.config.ApiSettings;
import io.punctual.planner.PlannerSettings;
import io.punctual.schedule.DeclaredSchedule;
import io.punctual.schedule.MisfirePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeclaredSchedulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2030-01-07T10:00:00Z");

  private static PlannerSettings declaring(String... bodies) throws Exception {
    PlannerSettings settings = new PlannerSettings();
    for (String body : bodies) {
      settings.schedules.add((ObjectNode) JSON.readTree(body.replace('\'', '"')));
    }
    return settings;
  }

  @Test
  void parsesDeclaredSchedulesWithTheApiRulesAndDefaults() throws Exception {
    PlannerSettings settings =
        declaring(
            "{'initIdentifier':'billing.close','name':'close','cron':'0 2 * * *',"
                + "'timezone':'Europe/Paris','type':'billing.close','misfire':'fire_all'}",
            "{'initIdentifier':'ops.ping','namespace':'ops','name':'ping','every':'PT30S',"
                + "'type':'http','callback':{'url':'https://ops.example/ping'}}");

    List<DeclaredSchedule> declared = DeclaredSchedules.parse(settings, new ApiSettings(), NOW);

    assertThat(declared).hasSize(2);
    assertThat(declared.get(0).namespace()).isEqualTo("default");
    assertThat(declared.get(0).definition().initIdentifier()).isEqualTo("billing.close");
    assertThat(declared.get(0).definition().misfire()).isEqualTo(MisfirePolicy.FIRE_ALL);
    assertThat(declared.get(1).namespace()).isEqualTo("ops");
    assertThat(declared.get(1).definition().every()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aBadDeclarationNamesItsSetting() throws Exception {
    PlannerSettings badCron =
        declaring(
            "{'initIdentifier':'a','name':'a','cron':'0 9 * * *','type':'t'}",
            "{'initIdentifier':'b','name':'b','cron':'0 25 * * *','type':'t'}");
    PlannerSettings noKey = declaring("{'name':'a','cron':'0 9 * * *','type':'t'}");
    PlannerSettings badNamespace =
        declaring("{'initIdentifier':'a','namespace':'{x}','name':'a','every':'PT1M','type':'t'}");

    assertThatThrownBy(() -> DeclaredSchedules.parse(badCron, new ApiSettings(), NOW))
        .hasMessageStartingWith("planner.schedules[1].cron: ");
    assertThatThrownBy(() -> DeclaredSchedules.parse(noKey, new ApiSettings(), NOW))
        .hasMessageStartingWith("planner.schedules[0].initIdentifier is required");
    assertThatThrownBy(() -> DeclaredSchedules.parse(badNamespace, new ApiSettings(), NOW))
        .hasMessageStartingWith("planner.schedules[0].namespace");
  }
}
