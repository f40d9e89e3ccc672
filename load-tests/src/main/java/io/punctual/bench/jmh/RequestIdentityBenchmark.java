package io.punctual.bench.jmh;

import com.codahale.metrics.MetricRegistry;
import io.punctual.api.auth.ApiKeys;
import io.punctual.api.auth.KeyAuthenticator;
import io.punctual.api.auth.KeyBootstrap;
import io.punctual.api.auth.KeySecrets;
import io.punctual.api.config.AuthSettings;
import io.punctual.api.context.Authorizer;
import io.punctual.api.context.RequestContext;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.store.Database;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an API key adds to each request, measured apart from the rest of the request: the whole
 * difference between a keyed and an unkeyed request in the API is {@link Authorizer#resolve} with
 * an authenticator (parse the Bearer value, SHA-256 it, look it up in the verified-key cache)
 * against the same call with authentication switched off. The key is a real one, created in a real
 * (embedded) PostgreSQL; after the first call it is served from the cache, as every request within
 * {@code auth.cacheFor} of the previous one is. Run with {@code load-tests/bench auth}; the figure
 * is read against the API's CPU per submit that {@code load-tests/bench submit} prints.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = "--sun-misc-unsafe-memory-access=allow")
@State(Scope.Benchmark)
public class RequestIdentityBenchmark {
  private EmbeddedPostgresServer postgres;
  private Database database;
  private Authorizer keyed;
  private Authorizer unkeyed;
  private String authorization;

  @Setup(Level.Trial)
  public void start() {
    postgres = EmbeddedPostgresServer.start(null, false);
    postgres.createDatabaseIfMissing("punctual");
    PostgresSettings settings = new PostgresSettings(postgres.jdbcUrl("punctual"), "postgres", "");
    settings.maxPoolSize = 2;
    database = Database.connect(settings, "jmh");
    Migrations.migrate(database.dataSource());
    ApiKeys keys = new ApiKeys(database.jdbi(), Clock.systemUTC());
    String secret = KeySecrets.generate();
    if (keys.create(KeyBootstrap.adminKey("jmh"), secret).isEmpty()) {
      throw new IllegalStateException("the benchmark key was not created");
    }
    authorization = "Bearer " + secret;
    keyed =
        new Authorizer(
            "default",
            new KeyAuthenticator(keys, Clock.systemUTC(), new AuthSettings(), new MetricRegistry()),
            io.punctual.api.auth.RefusalPacing.none());
    unkeyed = new Authorizer("default", null, io.punctual.api.auth.RefusalPacing.none());
  }

  @TearDown(Level.Trial)
  public void stop() {
    database.close();
    postgres.close();
  }

  /** A request that carries a valid key (cache hit, as within {@code auth.cacheFor}). */
  @Benchmark
  public RequestContext keyed() {
    return keyed.resolve(authorization, null);
  }

  /** The same request with authentication switched off ({@code auth.enabled: false}). */
  @Benchmark
  public RequestContext unkeyed() {
    return unkeyed.resolve(null, null);
  }
}
