package io.punctual.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScheduleJsonTest {

  @Test
  void writesAScheduleInTheApiShape() {
    ScheduleRequest request =
        ScheduleRequest.cron("nightly", "30 2 * * *", "cleanup")
            .initIdentifier("svc.nightly")
            .timezone("Europe/Paris")
            .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.BOTH))
            .misfire(MisfirePolicy.FIRE_ALL)
            .overlap(OverlapPolicy.SKIP)
            .startAt(Instant.parse("2030-01-01T00:00:00Z"))
            .payload(Map.of("days", 30))
            .priority(JobPriority.LOW)
            .maxAttempts(2)
            .timeout(Duration.ofMinutes(5))
            .tags("ops")
            .build();

    JsonNode json = ClientJson.MAPPER.valueToTree(request);

    assertThat(json.get("name").asText()).isEqualTo("nightly");
    assertThat(json.get("cron").asText()).isEqualTo("30 2 * * *");
    assertThat(json.has("every")).isFalse();
    assertThat(json.get("timezone").asText()).isEqualTo("Europe/Paris");
    assertThat(json.get("dst").get("gap").asText()).isEqualTo("skip");
    assertThat(json.get("dst").get("overlap").asText()).isEqualTo("both");
    assertThat(json.get("misfire").asText()).isEqualTo("fire_all");
    assertThat(json.get("overlap").asText()).isEqualTo("skip");
    assertThat(json.get("startAt").asText()).isEqualTo("2030-01-01T00:00:00Z");
    assertThat(json.get("priority").asText()).isEqualTo("low");
    assertThat(json.get("timeout").asText()).isEqualTo("PT5M");
    assertThat(json.get("payload").get("days").asInt()).isEqualTo(30);
  }

  @Test
  void anIntervalScheduleHasOnlyWhatWasSet() {
    JsonNode json =
        ClientJson.MAPPER.valueToTree(
            ScheduleRequest.every("tick", Duration.ofMinutes(1), "noop").build());

    assertThat(json.size()).isEqualTo(3);
    assertThat(json.get("every").asText()).isEqualTo("PT1M");
  }

  @Test
  void readsAScheduleAsTheApiWritesIt() throws Exception {
    ScheduleView view =
        ClientJson.MAPPER.readValue(
            """
            {"id":"0190b0f0-0000-7000-8000-000000000000","namespace":"default","name":"n",
             "initIdentifier":null,"cron":null,"every":"PT1M","timezone":"UTC",
             "dst":{"gap":"shift","overlap":"first"},"misfire":"fire_once","overlap":"allow",
             "startAt":null,"endAt":null,"type":"noop","payload":{},"priority":"normal",
             "maxAttempts":3,"backoff":{"strategy":"fixed","delay":"PT1S"},"timeout":null,
             "tags":[],"callback":null,"status":"PAUSED","nextFireAt":null,
             "lastFireAt":"2030-01-01T00:01:00Z","createdAt":"2030-01-01T00:00:00Z",
             "updatedAt":"2030-01-01T00:00:00Z","someFutureField":1}""",
            ScheduleView.class);

    assertThat(view.every()).isEqualTo(Duration.ofMinutes(1));
    assertThat(view.dst()).isEqualTo(DstPolicy.DEFAULT);
    assertThat(view.misfire()).isEqualTo(MisfirePolicy.FIRE_ONCE);
    assertThat(view.overlap()).isEqualTo(OverlapPolicy.ALLOW);
    assertThat(view.isPaused()).isTrue();
    assertThat(view.lastFireAt()).isEqualTo(Instant.parse("2030-01-01T00:01:00Z"));
  }
}
