package io.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Meter;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * auth.refusalsPerSecondPerSource: a source's 401s past its bucket (2 a second, bursts of 4 here;
 * the API's clock stands still, so it does not refill) are held before they are answered, and still
 * answered as 401 problems; requests with a valid key from the same source are never held.
 */
class RefusalPacingIT {
  static final ApiFixture FIXTURE = ApiFixture.withRefusalPacing(2);

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void refusalsPastTheSourcesBurstAreHeldAndKeyedRequestsAreNot() {
    Meter held = APP.getEnvironment().metrics().meter("punctual.auth.refusalsHeld");
    HttpSupport stranger = FIXTURE.http().key("pk_nosuchkey_0123456789abcdefghijklmnopqrstuv");

    for (int i = 0; i < 4; i++) {
      assertThat(stranger.get("/api/v1/jobs").status()).as("refusal %d", i).isEqualTo(401);
    }
    assertThat(held.getCount()).isZero();

    for (int i = 0; i < 2; i++) {
      Reply refused = stranger.get("/api/v1/jobs");
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.contentType()).startsWith("application/problem+json");
    }
    assertThat(held.getCount()).isEqualTo(2);

    for (int i = 0; i < 5; i++) {
      assertThat(FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
      assertThat(FIXTURE.http().get("/api/v1/jobs").status()).isEqualTo(200);
    }
    assertThat(held.getCount()).isEqualTo(2);
  }
}
