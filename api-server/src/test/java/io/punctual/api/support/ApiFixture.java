package io.punctual.api.support;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.lifecycle.JettyManaged;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.queue.Stores;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.store.testing.TestClock;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The API running in-process on random ports against real PostgreSQL and Redis (a fresh database
 * and key prefix from {@link TestStack}). Use as {@code @RegisterExtension static final
 * DropwizardAppExtension<?> APP = FIXTURE.app;}.
 */
public final class ApiFixture {
  /** The admin key every fixture starts with (its bootstrap key); requests carry it by default. */
  public static final String ADMIN_KEY = "test-admin-key-0123456789abcdefghijklmnopqrstuvwxyz";

  /** The deployment's secrets key of every fixture: signing secrets are stored sealed. */
  public static final byte[] SECRETS_KEY = "the fixture's 32-byte secret key".getBytes(US_ASCII);

  public final TestClock clock;
  public final TestStack stack;
  public final Stores stores;
  public final ApiSettings settings;
  public final SigningSecrets signingSecrets;
  public final DropwizardAppExtension<TestApiConfiguration> app;

  private ApiFixture(TestStack stack, Stores stores, ApiSettings settings, boolean keys) {
    this(stack, stores, settings, keys, 0);
  }

  /**
   * {@code refusalsPerSecond}: auth.refusalsPerSecondPerSource. The tests' clock stands still, so a
   * source's refusal bucket would never fill again: only RefusalPacingIT turns pacing on.
   */
  private ApiFixture(
      TestStack stack, Stores stores, ApiSettings settings, boolean keys, int refusalsPerSecond) {
    this.clock = (TestClock) stack.clock;
    this.stack = stack;
    this.stores = stores;
    this.settings = settings;
    this.signingSecrets =
        new SigningSecrets(
            stores.database().jdbi(), stores.clock(), SecretSealer.withKey(SECRETS_KEY));
    TestApiConfiguration config = new TestApiConfiguration();
    config.stores = stores;
    config.signingSecrets = signingSecrets;
    config.api = settings;
    config.auth.bootstrapKey = ADMIN_KEY;
    config.auth.enabled = keys;
    config.auth.refusalsPerSecondPerSource = refusalsPerSecond;
    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    server.setEnableVirtualThreads(true); // as the bundled punctual.yml sets it
    ((HttpConnectorFactory) server.getApplicationConnectors().get(0)).setPort(0);
    ((HttpConnectorFactory) server.getAdminConnectors().get(0)).setPort(0);
    this.app = new DropwizardAppExtension<>(TestApiApplication.class, config);
    app.addListener(
        new DropwizardAppExtension.ServiceListener<>() {
          @Override
          public void onStop(DropwizardAppExtension<TestApiConfiguration> extension) {
            close();
          }
        });
  }

  /** The API with small limits so that limit tests stay small (see {@link #testSettings}). */
  public static ApiFixture start() {
    return start(testSettings());
  }

  public static ApiFixture start(ApiSettings settings) {
    return start(settings, true);
  }

  /**
   * The API with API keys switched off ({@code auth.enabled: false}): every caller is an admin, and
   * changes need a Host of the server and a JSON content type.
   */
  public static ApiFixture withoutKeys(ApiSettings settings) {
    return start(settings, false);
  }

  private static ApiFixture start(ApiSettings settings, boolean keys) {
    TestStack stack = new TestStack(newClock());
    // the API's pool, as the api command opens it: under api.statementTimeout
    PostgresSettings postgres = new PostgresSettings(stack.postgres);
    postgres.statementTimeout = settings.statementTimeout;
    Stores stores =
        new Stores(postgres, stack.redisSettings, stack.queueSettings, stack.clock, "api");
    return new ApiFixture(stack, stores, settings, keys);
  }

  /** The API with auth.refusalsPerSecondPerSource at {@code perSecond} (off in the others). */
  public static ApiFixture withRefusalPacing(int perSecond) {
    TestStack stack = new TestStack(newClock());
    Stores stores =
        new Stores(stack.postgres, stack.redisSettings, stack.queueSettings, stack.clock, "api");
    return new ApiFixture(stack, stores, testSettings(), true, perSecond);
  }

  /** The API against PostgreSQL settings of the caller's choosing (e.g. a server that is down). */
  public static ApiFixture withPostgres(PostgresSettings postgres) {
    TestStack stack = new TestStack(newClock());
    RedisSettings redis = stack.redisSettings;
    Stores stores = new Stores(postgres, redis, stack.queueSettings, stack.clock, "api");
    return new ApiFixture(stack, stores, testSettings(), true);
  }

  private static TestClock newClock() {
    return new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  public static ApiSettings testSettings() {
    ApiSettings settings = new ApiSettings();
    settings.maxPayloadBytes = 1024;
    settings.maxBatchSize = 5;
    settings.maxRequestBytes = 64 * 1024;
    settings.maxListLimit = 20;
    settings.defaultListLimit = 10;
    // the test clock stands still, so a read bucket would never fill again: the tests of the
    // limit (ReadRateLimitIT, the corpus's) turn it on and move the clock themselves
    settings.readsPerSecondPerKey = 0;
    return settings;
  }

  /** The running API's managed object of class {@code type} (one of its lifecycle's). */
  public <T> T managed(Class<T> type) {
    return app.getEnvironment().lifecycle().getManagedObjects().stream()
        .filter(o -> o instanceof JettyManaged m && type.isInstance(m.getManaged()))
        .map(o -> type.cast(((JettyManaged) o).getManaged()))
        .findFirst()
        .orElseThrow();
  }

  public URI baseUri() {
    return URI.create("http://localhost:" + app.getLocalPort());
  }

  public URI adminUri() {
    return URI.create("http://localhost:" + app.getAdminPort());
  }

  /** Raw HTTP carrying the admin key ({@link HttpSupport#key} to use another, or none). */
  public HttpSupport http() {
    return new HttpSupport(baseUri()).key(ADMIN_KEY);
  }

  public HttpSupport adminHttp() {
    return new HttpSupport(adminUri());
  }

  private void close() {
    stores.close();
    stack.close();
  }
}
