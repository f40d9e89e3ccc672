package io.punctual.api.auth;

import io.dropwizard.lifecycle.Managed;
import io.punctual.api.config.AuthSettings;
import io.punctual.api.problem.StoreFailures;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link KeyBootstrap} when the API starts. With PostgreSQL reachable, a missing admin key
 * stops the start. With PostgreSQL unreachable the API starts anyway (it answers 503 until the
 * database is back, as it would for any request), and the bootstrap key is stored by a retry every
 * {@link #RETRY} once it is: refusing to start would turn a database outage into an API outage that
 * outlasts it.
 */
public final class KeyBootstrapAtStart implements Managed {
  static final Duration RETRY = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(KeyBootstrapAtStart.class);

  private final AuthSettings auth;
  private final ApiKeys keys;
  private ScheduledExecutorService retries;

  public KeyBootstrapAtStart(AuthSettings auth, ApiKeys keys) {
    this.auth = auth;
    this.keys = keys;
  }

  /**
   * Stores the bootstrap key and checks that an admin key exists, or schedules retries when
   * PostgreSQL cannot be reached.
   *
   * @throws IllegalStateException when PostgreSQL answers and no admin key exists
   */
  @Override
  public void start() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      if (!StoreFailures.isUnavailable(e)) {
        throw e;
      }
      LOG.warn(
          "PostgreSQL is unreachable: API keys cannot be checked at start; retrying every {}",
          RETRY);
      retries =
          Executors.newSingleThreadScheduledExecutor(
              r -> Thread.ofPlatform().daemon().name("punctual-key-bootstrap").unstarted(r));
      var unused =
          retries.scheduleWithFixedDelay(
              this::retry, RETRY.toMillis(), RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** One attempt: store the bootstrap key, then require an admin. */
  public void runOnce() {
    KeyBootstrap.apply(auth, keys);
    KeyBootstrap.requireAnAdmin(keys);
  }

  private void retry() {
    try {
      runOnce();
      LOG.info("API keys checked: an admin key exists");
      retries.shutdown();
    } catch (IllegalStateException noAdmin) {
      LOG.error("{}: every request will be refused with 401", noAdmin.getMessage());
      retries.shutdown();
    } catch (RuntimeException e) {
      LOG.debug("API keys still cannot be checked", e);
    }
  }

  @Override
  public void stop() {
    if (retries != null) {
      retries.shutdownNow();
    }
  }
}
