package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.requests.Fields;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every accepted time comes back exactly as sent: a runAt at the latest time the API takes ({@link
 * Fields#LATEST}) and just below it, with milliseconds, is stored and read back to the millisecond,
 * and the job is found by its id (whose time part is the same instant). Before V20 some times from
 * the year 2242 on were stored microseconds off, and such a job was not found by its id.
 */
class FarRunAtIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void aRunAtAtTheLatestTimeAndNearItReadsBackExactly() {
    List<Instant> times =
        List.of(
            Fields.LATEST,
            Fields.LATEST.minusMillis(1),
            Instant.parse("3999-12-31T23:59:59.001Z"),
            Instant.parse("3999-06-15T12:34:56.789Z"),
            Instant.parse("3500-02-28T23:59:59.999Z"),
            // times V1's punctual_ms stored a few microseconds off (a 404 right after the 201)
            Instant.parse("3094-06-11T14:13:53.091Z"),
            Instant.parse("2242-03-17T05:19:46.429Z"),
            Instant.parse("2999-12-31T23:59:59.999Z"));
    for (Instant runAt : times) {
      Reply created =
          FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"far\",\"runAt\":\"" + runAt + "\"}");
      assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
      assertThat(Instant.parse(created.json().get("runAt").asText())).isEqualTo(runAt);

      Reply read = FIXTURE.http().get("/api/v1/jobs/" + created.json().get("id").asText());
      assertThat(read.status()).as("%s: %s", runAt, read.raw().body()).isEqualTo(200);
      assertThat(Instant.parse(read.json().get("runAt").asText())).as("runAt").isEqualTo(runAt);
    }
    Reply after =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"far\",\"runAt\":\"" + Fields.LATEST.plusMillis(1) + "\"}");
    assertThat(after.status()).isEqualTo(422);
    assertThat(after.json().get("field").asText()).isEqualTo("runAt");
  }
}
