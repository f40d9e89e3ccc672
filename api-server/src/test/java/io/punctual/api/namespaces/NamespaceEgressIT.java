package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.auth.KeysIT;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.store.namespace.Egress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code PUT /api/v1/namespaces/{name}/egress}: a namespace's part of the deployment's ceiling. */
class NamespaceEgressIT {
  static final ApiFixture FIXTURE = ApiFixture.start(withCeiling());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static ApiSettings withCeiling() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.callbackPolicy = OutboundPolicy.of("10.0.0.0/8", "hooks.internal");
    return settings;
  }

  @Test
  void aGrantWithinTheCeilingIsStoredAndShown() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"payroll\"}");
    assertThat(FIXTURE.http().get("/api/v1/namespaces/payroll").json().get("egress").toString())
        .isEqualTo("{\"allow\":[],\"keepResponse\":false}");

    Reply granted =
        FIXTURE
            .http()
            .put(
                "/api/v1/namespaces/payroll/egress",
                "{\"allow\":[\"10.1.2.0/24\",\"10.9.9.9\",\"hooks.internal\"],\"keepResponse\":true}");

    assertThat(granted.status()).as(granted.raw().body()).isEqualTo(200);
    JsonNode egress = granted.json().get("egress");
    assertThat(egress.get("allow").toString())
        .isEqualTo("[\"10.1.2.0/24\",\"10.9.9.9\",\"hooks.internal\"]");
    assertThat(egress.get("keepResponse").asBoolean()).isTrue();
    assertThat(FIXTURE.stores.namespaces().egressOf("payroll"))
        .isEqualTo(new Egress(List.of("10.1.2.0/24", "10.9.9.9", "hooks.internal"), true));

    Reply revoked = FIXTURE.http().put("/api/v1/namespaces/payroll/egress", "{\"allow\":[]}");
    assertThat(revoked.status()).isEqualTo(200);
    assertThat(FIXTURE.stores.namespaces().egressOf("payroll")).isEqualTo(Egress.NONE);
  }

  @Test
  void whatTheCeilingDoesNotOpenIsRefusedEntryByEntry() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"greedy\"}");

    Reply refused =
        FIXTURE
            .http()
            .put(
                "/api/v1/namespaces/greedy/egress",
                "{\"allow\":[\"192.168.0.0/16\",\"not an address!\",\"10.0.0.0/7\",\"other.internal\"],"
                    + "\"keepResponse\":\"yes\"}");

    assertThat(refused.status()).isEqualTo(422);
    assertThat(refused.contentType()).isEqualTo("application/problem+json");
    assertThat(refused.json().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("allow[0]", "allow[1]", "allow[2]", "allow[3]", "keepResponse");
    assertThat(refused.raw().body()).contains("worker.http.allow");
    assertThat(FIXTURE.stores.namespaces().egressOf("greedy")).isEqualTo(Egress.NONE);
    assertThat(FIXTURE.http().put("/api/v1/namespaces/greedy/egress", "{}").status())
        .isEqualTo(422);
    assertThat(FIXTURE.http().put("/api/v1/namespaces/nowhere/egress", "{\"allow\":[]}").status())
        .isEqualTo(404);
  }

  @Test
  void onlyAnAdminGrants() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ops\"}");
    String operator = KeysIT.createKey(FIXTURE, "ops operator", "operator", "[\"ops\"]");

    Reply refused =
        FIXTURE
            .http()
            .key(operator)
            .put("/api/v1/namespaces/ops/egress", "{\"allow\":[\"10.1.0.0/16\"]}");

    assertThat(refused.status()).isEqualTo(403);
    assertThat(FIXTURE.stores.namespaces().egressOf("ops")).isEqualTo(Egress.NONE);
  }
}
