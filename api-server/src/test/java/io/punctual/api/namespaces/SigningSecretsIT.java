package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.auth.KeysIT;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.outbound.signing.SigningSecret;
import io.punctual.store.secret.SigningSecrets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /api/v1/namespaces/{name}/signing-secrets}: made, shown once, listed, deleted. */
class SigningSecretsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final String PATH = "/api/v1/namespaces/%s/signing-secrets";

  @Test
  void aNewNamespaceComesWithItsFirstSecretShownOnce() {
    Reply created = FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"payments\"}");

    assertThat(created.status()).isEqualTo(201);
    assertThat(created.header("Cache-Control")).hasValue("no-store");
    JsonNode secret = created.json().get("signingSecret");
    assertThat(secret.get("secret").asText()).startsWith("whsec_");
    assertSigns("payments", secret.get("secret").asText());
    assertThat(FIXTURE.http().get("/api/v1/namespaces/payments").json().has("signingSecret"))
        .isFalse();
    Reply listed = FIXTURE.http().get(PATH.formatted("payments"));
    assertThat(listed.json().get("items")).hasSize(1);
    assertThat(listed.json().get("items").get(0).get("id").asText())
        .isEqualTo(secret.get("id").asText());
    assertThat(listed.raw().body()).doesNotContain(secret.get("secret").asText().substring(6));
  }

  @Test
  void secretsRotate_everyOneSigns_andTheLastIsKept() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"rotating\"}");
    String firstId =
        FIXTURE
            .http()
            .get(PATH.formatted("rotating"))
            .json()
            .get("items")
            .get(0)
            .get("id")
            .asText();

    Reply made = FIXTURE.http().post(PATH.formatted("rotating"), "");

    assertThat(made.status()).isEqualTo(201);
    assertThat(made.header("Location"))
        .hasValueSatisfying(
            l -> assertThat(l).endsWith("/signing-secrets/" + made.json().get("id").asText()));
    assertThat(made.header("Cache-Control")).hasValue("no-store");
    String value = made.json().get("secret").asText();
    assertThat(SigningSecret.parse(value)).isPresent();
    assertThat(FIXTURE.http().get(PATH.formatted("rotating")).json().get("items")).hasSize(2);
    assertThat(FIXTURE.signingSecrets.signingKeysOf("rotating")).hasSize(2);

    Reply deleted = FIXTURE.http().method("DELETE", PATH.formatted("rotating") + "/" + firstId);
    assertThat(deleted.status()).isEqualTo(204);
    assertSigns("rotating", value);
    assertThat(FIXTURE.signingSecrets.signingKeysOf("rotating")).hasSize(1);

    String lastId = made.json().get("id").asText();
    Reply last = FIXTURE.http().method("DELETE", PATH.formatted("rotating") + "/" + lastId);
    assertThat(last.status()).isEqualTo(409);
    assertThat(last.contentType()).isEqualTo("application/problem+json");
    assertThat(last.json().get("type").asText()).endsWith("last-signing-secret");
    assertThat(last.json().get("field").asText()).isEqualTo("id");

    Reply again = FIXTURE.http().method("DELETE", PATH.formatted("rotating") + "/" + firstId);
    assertThat(again.status()).isEqualTo(404);
    assertThat(FIXTURE.http().method("DELETE", PATH.formatted("rotating") + "/not-a-uuid").status())
        .isEqualTo(404);
  }

  @Test
  void aNamespaceHoldsAtMostTenSecrets() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"hoarding\"}");
    for (int i = 1; i < SigningSecrets.MAX_PER_NAMESPACE; i++) {
      assertThat(FIXTURE.http().post(PATH.formatted("hoarding"), "").status()).isEqualTo(201);
    }

    Reply refused = FIXTURE.http().post(PATH.formatted("hoarding"), "");

    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.json().get("type").asText()).endsWith("/signing-secrets-full");
    assertThat(refused.json().get("field").asText()).isEqualTo("name");
    assertThat(FIXTURE.signingSecrets.signingKeysOf("hoarding"))
        .hasSize(SigningSecrets.MAX_PER_NAMESPACE);
  }

  @Test
  void onlyAnAdminSeesOrChangesSecrets() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"guarded\"}");
    String operator = KeysIT.createKey(FIXTURE, "ops", "operator", "[\"guarded\"]");

    assertThat(FIXTURE.http().key(operator).get(PATH.formatted("guarded")).status()).isEqualTo(403);
    assertThat(FIXTURE.http().key(operator).post(PATH.formatted("guarded"), "").status())
        .isEqualTo(403);
    assertThat(FIXTURE.http().key(null).get(PATH.formatted("guarded")).status()).isEqualTo(401);
    assertThat(FIXTURE.http().get(PATH.formatted("no-such-namespace")).status()).isEqualTo(404);
    assertThat(FIXTURE.signingSecrets.signingKeysOf("guarded")).hasSize(1);
  }

  @Test
  void everyNamespaceWithARowHasASecretOnceTheApiHasStarted() {
    assertThat(FIXTURE.http().get(PATH.formatted("default")).json().get("items")).hasSize(1);
  }

  /** Whether {@code secret} is one of those that sign the namespace's deliveries now. */
  private static void assertSigns(String namespace, String secret) {
    byte[] key = SigningSecret.of(secret).key();
    List<byte[]> keys = new ArrayList<>(FIXTURE.signingSecrets.signingKeysOf(namespace));
    assertThat(keys).anyMatch(k -> Arrays.equals(k, key));
  }
}
