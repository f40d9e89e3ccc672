package io.punctual.deploy.command;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.punctual.api.ApiModule;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.limits.DeclaredLimits;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.Tracing;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.planner.plan.Planner;
import io.punctual.queue.Stores;
import io.punctual.reaper.DeathWatchLoop;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.worker.Worker;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.handler.registry.JobHandlers;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pieces the role commands share: opening the stores, checking the schema, the worker, the
 * planner.
 */
final class RoleWiring {
  private static final Logger log = LoggerFactory.getLogger(RoleWiring.class);

  /** PostgreSQL's "undefined_function": the schema (punctual_ensure_partitions) is not there. */
  private static final String UNDEFINED_FUNCTION = "42883";

  private RoleWiring() {}

  /** Opens PostgreSQL and Redis; they are closed after everything opened later. */
  static Stores openStores(
      PunctualConfiguration config, String role, Resources resources, Environment environment) {
    return openStores(config.postgres, config, role, resources, environment);
  }

  /** The same, with {@code postgres} instead of the configuration's (the API's own pool). */
  static Stores openStores(
      PostgresSettings postgres,
      PunctualConfiguration config,
      String role,
      Resources resources,
      Environment environment) {
    Stores stores = new Stores(postgres, config.redis, config.queue, Clock.systemUTC(), role);
    resources.add("stores", stores::close, environment);
    // HikariCP's own Dropwizard metrics (<role>.pool.*): on /metrics and, bridged, /prometheus.
    if (stores.database().dataSource() instanceof HikariDataSource pool) {
      pool.setMetricRegistry(environment.metrics());
    }
    return stores;
  }

  /** Flyway migrations, then the daily partitions ahead. */
  static MigrateResult migrate(Stores stores) {
    MigrateResult result = Migrations.migrate(stores.database().dataSource());
    int created = stores.partitions().ensureAhead();
    log.info(
        "schema at version {} ({} migrations applied now), {} partition tables created",
        schemaVersion(result),
        result.migrationsExecuted,
        created);
    return result;
  }

  /** The schema version after a migration (Flyway reports no target when nothing was applied). */
  static String schemaVersion(MigrateResult result) {
    return result.targetSchemaVersion != null
        ? result.targetSchemaVersion
        : result.initialSchemaVersion;
  }

  /**
   * Creates the partitions ahead, which also proves the schema exists. A missing schema stops the
   * start ("run migrate first"); an unreachable PostgreSQL does not: the role starts, reports
   * unhealthy and recovers when PostgreSQL comes back.
   */
  static void checkSchema(Stores stores) {
    try {
      stores.partitions().ensureAhead();
    } catch (RuntimeException e) {
      if (UNDEFINED_FUNCTION.equals(sqlState(e))) {
        throw new IllegalStateException(
            "the PostgreSQL database has no Punctual schema; run `./punctual migrate` first", e);
      }
      log.warn("PostgreSQL not usable at start-up, going on (see /healthcheck): {}", e.toString());
    }
  }

  /**
   * A worker with the built-in handlers (and any on the class path), started with the server, and
   * beside it a {@link DeathWatchLoop}: the workers rescue a dead one's attempts within seconds
   * wherever the reaper runs only now and then.
   */
  static Worker startWorker(RoleCommand.Wiring wiring, Stores stores) {
    PunctualConfiguration config = wiring.config();
    OutboundPolicy callbacks = config.worker.http.outboundPolicy();
    if (callbacks.opensAnything()) {
      log.warn(
          "http callbacks may reach, besides the public internet: {} (worker.http.allow)",
          callbacks.describe());
    } else {
      log.info(
          "http callbacks refuse loopback, private, link-local and reserved addresses"
              + " (open chosen ones with worker.http.allow / PUNCTUAL_HTTP_ALLOW)");
    }
    try {
      DeclaredLimits.register(
          stores.limits(), DeclaredLimits.parse(config.limits, config.api.defaultNamespace));
    } catch (RuntimeException e) {
      log.warn("declared limits not registered (next start of a worker does): {}", e.toString());
    }
    Optional<OpenTelemetrySdk> otel = Tracing.of("worker", System.getenv());
    otel.ifPresent(
        sdk ->
            wiring.resources().addStarted("tracing", () -> {}, sdk::close, wiring.environment()));
    Worker worker =
        new Worker(
            stores,
            config.worker,
            JobHandlers.withBuiltIns(
                config.worker,
                stores.clock(),
                new HttpHandler.Tenancy(signer(config, stores), stores.namespaces()::egressOf)),
            wiring.environment().metrics(),
            Tracing.forWorker(otel));
    wiring.resources().addStarted("worker", worker::start, worker::close, wiring.environment());
    DeathWatchLoop deaths =
        new DeathWatchLoop(stores, config.reaper, wiring.environment().metrics());
    wiring
        .resources()
        .addStarted("death watch", deaths::start, deaths::close, wiring.environment());
    return worker;
  }

  /** The API's resources on {@code environment}, answering from {@code stores}. */
  static void registerApi(
      Environment environment,
      Stores stores,
      PunctualConfiguration config,
      SigningSecrets signingSecrets) {
    ApiModule.register(
        environment, stores, config.api, config.auth, config.planner.minInterval, signingSecrets);
  }

  /** The namespaces' signing secrets, sealed under {@code secrets.encryptionKey}. */
  static SigningSecrets signingSecrets(PunctualConfiguration config, Stores stores) {
    return new SigningSecrets(
        stores.database().jdbi(), stores.clock(), SecretSealer.of(config.secrets));
  }

  /** What signs each namespace's deliveries (callbacks, alert notices) with its own secrets. */
  static WebhookSigner signer(PunctualConfiguration config, Stores stores) {
    return WebhookSigner.caching(signingSecrets(config, stores)::signingKeysOf, stores.clock());
  }

  /** The planner (declared schedules registered on its first pass), started with the server. */
  static Planner startPlanner(RoleCommand.Wiring wiring, Stores stores) {
    Planner planner =
        PlannerCommand.planner(wiring.config(), stores, wiring.environment().metrics());
    wiring.resources().addStarted("planner", planner::start, planner::close, wiring.environment());
    return planner;
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
