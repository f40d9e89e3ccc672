package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.outbound.address.OutboundPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A callback URL that spells a refused address, in any form, is a 422 naming {@code callback.url}
 * and nothing is stored; {@code worker.http.allow} (the API's {@code callbackPolicy}) opens chosen
 * ones; a host name is not resolved at submission.
 */
class CallbackAddressIT {
  static final ApiFixture STRICT = ApiFixture.start();

  static final ApiFixture OPEN = ApiFixture.start(allowing("127.0.0.1/32"));

  @RegisterExtension static final DropwizardAppExtension<?> STRICT_APP = STRICT.app;

  @RegisterExtension static final DropwizardAppExtension<?> OPEN_APP = OPEN.app;

  private static ApiSettings allowing(String... entries) {
    ApiSettings settings = ApiFixture.testSettings();
    settings.callbackPolicy = OutboundPolicy.of(entries);
    return settings;
  }

  private static String job(String url) {
    return "{\"type\":\"http\",\"callback\":{\"url\":\"" + url + "\"}}";
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "http://127.0.0.1:8081/tasks/gc",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://017700000001/",
        "http://127.0.0.1./",
        "http://user:pw@127.0.0.1:6379/",
        "http://evil.example@127.0.0.1/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[0:0:0:0:0:ffff:127.0.0.1]/",
        "http://[::127.0.0.1]/",
        "http://[64:ff9b::127.0.0.1]/",
        "http://[fe80::1%25eth0]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://[fc00::1]/",
        "http://0.0.0.0:8080/",
        "http://0/",
        "http://[::]/",
        "http://224.0.0.1/",
        "http://[ff02::1]/",
        "http://255.255.255.255/",
        "http://240.0.0.1/",
        "http://100.64.0.1/",
        "http://192.0.0.1/",
        "http://192.0.2.1/",
        "http://198.18.0.1/",
        "http://198.51.100.1/",
        "http://203.0.113.1/",
        "http://[2001:db8::1]/",
        "https://127.0.0.1/"
      })
  void aLiteralForbiddenAddressIsRefusedNamingCallbackUrl(String url) {
    Reply reply = STRICT.http().post("/api/v1/jobs", job(url));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("callback.url");
    assertThat(reply.raw().body()).contains("worker.http.allow");
    assertThat(stored(STRICT, url)).isZero();
  }

  @Test
  void theRefusalSaysWhatTheAddressIs() {
    Reply reply = STRICT.http().post("/api/v1/jobs", job("http://2130706433:6379/"));

    assertThat(reply.json().get("errors").get(0).get("message").asText())
        .isEqualTo(
            "names 127.0.0.1, a loopback address, which callbacks may not reach;"
                + " allow it with worker.http.allow");
  }

  @Test
  void aBatchNamesTheJobWhoseCallbackIsRefused() {
    Reply reply =
        STRICT
            .http()
            .post(
                "/api/v1/jobs/batch",
                "{\"jobs\":["
                    + job("https://hooks.example/a")
                    + ","
                    + job("http://169.254.169.254/")
                    + "]}");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs[1].callback.url");
    assertThat(stored(STRICT, "https://hooks.example/a")).isZero();
  }

  @Test
  void aHostNameIsNotResolvedAtSubmission() {
    Reply reply = STRICT.http().post("/api/v1/jobs", job("http://localhost:8081/"));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    assertThat(stored(STRICT, "http://localhost:8081/")).isEqualTo(1);
  }

  @Test
  void aPublicAddressIsAccepted() {
    Reply reply = STRICT.http().post("/api/v1/jobs", job("https://93.184.215.14/hook"));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"http://127.0.0.1:9000/hook", "http://2130706433/", "http://[::ffff:127.0.0.1]/"})
  void theAllowlistOpensWhatItNames(String url) {
    Reply reply = OPEN.http().post("/api/v1/jobs", job(url));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"http://127.0.0.2/", "http://[::1]/", "http://10.0.0.1/"})
  void theAllowlistOpensNothingElse(String url) {
    Reply reply = OPEN.http().post("/api/v1/jobs", job(url));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("callback.url");
  }

  /** Jobs stored with a callback to {@code url} (others' tests store jobs too). */
  private static int stored(ApiFixture fixture, String url) {
    return fixture
        .stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM jobs WHERE callback->>'url' = :url")
                    .bind("url", url)
                    .mapTo(Integer.class)
                    .one());
  }
}
