package io.punctual.app;

import static java.nio.charset.StandardCharsets.US_ASCII;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.testing.DropwizardTestSupport;
import io.punctual.api.ApiModule;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.config.AuthSettings;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import java.time.Clock;

/**
 * The Punctual API alone in a JVM of its own, so that a test can kill it ({@code kill -9}) and
 * start it again on the same port: {@link ApiModule} on real PostgreSQL and Redis, API keys on with
 * {@link #ADMIN_KEY} as the bootstrap key, {@code api.maxPayloadBytes} 1024 (to have a refusal at
 * hand). Prints {@code api ready} once it answers. Arguments: PostgreSQL URL, user, password, Redis
 * URL, key prefix, port.
 */
public final class ApiMain extends Application<ApiMain.Config> {
  /** The API's bootstrap admin key (a test's, not a secret). */
  public static final String ADMIN_KEY = "outbox-test-admin-key-0123456789abcdefghijklmnop";

  /** The API's largest payload, smaller than the outbox's default so that a test meets a 413. */
  public static final int MAX_PAYLOAD_BYTES = 1024;

  /** The application's configuration: the stores are handed over directly. */
  public static class Config extends Configuration {
    @JsonIgnore Stores stores;
    @JsonIgnore ApiSettings api = new ApiSettings();
    @JsonIgnore AuthSettings auth = new AuthSettings();
    @JsonIgnore SigningSecrets signingSecrets;
  }

  @Override
  public void run(Config config, Environment environment) {
    ApiModule.register(environment, config.stores, config.api, config.auth, config.signingSecrets);
  }

  public static void main(String[] args) throws Exception {
    Clock clock = Clock.systemUTC();
    Stores stores =
        new Stores(
            new PostgresSettings(args[0], args[1], args[2]),
            new RedisSettings(args[3], args[4]),
            new QueueSettings(),
            clock,
            "api");
    Config config = new Config();
    config.stores = stores;
    config.api.maxPayloadBytes = MAX_PAYLOAD_BYTES;
    config.auth.bootstrapKey = ADMIN_KEY;
    config.signingSecrets =
        new SigningSecrets(
            stores.database().jdbi(),
            clock,
            SecretSealer.withKey("the outbox tests' 32-byte key...".getBytes(US_ASCII)));
    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    server.setEnableVirtualThreads(true);
    ((HttpConnectorFactory) server.getApplicationConnectors().get(0))
        .setPort(Integer.parseInt(args[5]));
    ((HttpConnectorFactory) server.getAdminConnectors().get(0)).setPort(0);
    new DropwizardTestSupport<>(ApiMain.class, config).before();
    System.out.println("api ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
