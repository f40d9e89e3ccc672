package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.api.auth.ApiKeys;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.dev.DevAdminKey;
import io.punctual.deploy.dev.DevSecrets;
import io.punctual.deploy.dev.EmbeddedStores;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.queue.Stores;
import io.punctual.store.secret.SigningSecrets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code punctual dev}: everything in one process, on its own embedded PostgreSQL 18 and Redis
 * (free ports, data in {@code dataDir}, kept across restarts): migrations, partitions, the API, a
 * worker, the planner and the reaper.
 */
final class DevCommand extends RoleCommand {
  /** Present in the dev distribution only; the production jar leaves the embedded servers out. */
  private static final String EMBEDDED_SERVERS =
      "io/punctual/embedded/EmbeddedPostgresServer.class";

  static final String NEEDS_DEV_DISTRIBUTION =
      "punctual: dev needs the dev distribution (deploy/target/punctual.jar, which carries the"
          + " embedded PostgreSQL and Redis); this production jar runs the other commands against"
          + " your own PostgreSQL and Redis.";

  private EmbeddedStores embedded;
  private Stores stores;
  private Integer trainJobs;

  /** Where the training run's own worker process writes its cache (null: dev runs the worker). */
  private Path trainWorkerCache;

  /** The admin key requests send, or null without authentication. */
  private String apiKey;

  private String adminKey;
  private Path signingSecret;

  DevCommand(Application<PunctualConfiguration> application) {
    super(
        application,
        "dev",
        "Run everything in one process on an embedded PostgreSQL and Redis (data kept in"
            + " dataDir, default .punctual-data)");
  }

  @Override
  public void configure(Subparser subparser) {
    super.configure(subparser);
    subparser
        .addArgument("--fresh")
        .action(Arguments.storeTrue())
        .help("wipe the embedded PostgreSQL and Redis data in dataDir before starting");
    subparser
        .addArgument("--train-jobs")
        .type(Integer.class)
        .metavar("N")
        .help(
            "a training run (what the launcher's aot-cache runs): once up, store N no-op jobs"
                + " but a tenth (up to 2,000) in backlogs and wait for them to run, then submit the"
                + " rest through the API one by one (run too, unless --train-worker-cache), then"
                + " stop (exit status 1 if the jobs did not all run)");
    subparser
        .addArgument("--train-worker-cache")
        .metavar("FILE")
        .help(
            "with --train-jobs: the jobs are run by a worker process of their own, started with"
                + " this JVM's flags, which writes its ahead-of-time cache to FILE at its exit (what"
                + " the launcher's aot-cache gives `punctual worker`); dev then runs no worker");
  }

  @Override
  void wire(Wiring wiring) {
    Environment environment = wiring.environment();
    Namespace namespace = wiring.namespace();
    PunctualConfiguration config = wiring.config();
    Resources resources = wiring.resources();
    trainJobs = namespace.getInt("train_jobs");
    if (trainJobs != null && trainJobs < 1) {
      throw new CommandExit(2, "punctual: --train-jobs must be at least 1");
    }
    String workerCache = namespace.getString("train_worker_cache");
    if (workerCache != null && trainJobs == null) {
      throw new CommandExit(2, "punctual: --train-worker-cache needs --train-jobs");
    }
    trainWorkerCache = workerCache == null ? null : Path.of(workerCache).toAbsolutePath();
    if (DevCommand.class.getClassLoader().getResource(EMBEDDED_SERVERS) == null) {
      throw new CommandExit(2, NEEDS_DEV_DISTRIBUTION);
    }
    embedded = EmbeddedStores.start(config.dataDirPath(), namespace.getBoolean("fresh"));
    resources.add("embedded PostgreSQL and Redis", embedded::close, environment);
    config.postgres.url = embedded.jdbcUrl();
    config.postgres.user = EmbeddedStores.USER;
    config.postgres.password = "";
    config.redis.url = embedded.redisUrl();
    config.redis.leaseNodes = new ArrayList<>();
    config.redis.cluster = new ArrayList<>(); // dev runs on its embedded standalone Redis
    if (!config.secrets.keyed() && !config.secrets.storePlain) {
      // Dev seals its signing secrets under a key of its own, kept in the data directory.
      config.secrets.encryptionKey = DevSecrets.encryptionKey(config.dataDirPath());
    }

    stores = RoleWiring.openStores(config, "dev", resources, environment);
    RoleWiring.migrate(stores);
    apiKey = apiKey(config, stores);
    adminKey = adminKey(config, apiKey);
    SigningSecrets secrets = RoleWiring.signingSecrets(config, stores);
    signingSecret = DevSecrets.defaultSigningSecret(secrets, config.dataDirPath());
    RoleWiring.registerApi(environment, stores, config, secrets);
    if (trainWorkerCache == null) {
      RoleWiring.startWorker(wiring, stores);
    }
    RoleWiring.startPlanner(wiring, stores);
    ReaperCommand.startReaper(wiring, stores, "dev-" + ProcessHandle.current().pid());
  }

  /**
   * Dev keeps the callback policy of production: an {@code http} job may not call this machine (its
   * admin port, its Redis) unless the ceiling opens it and its namespace is granted it, as a dev
   * API is often reachable from the network.
   */
  private static String callbacks(PunctualConfiguration config) {
    OutboundPolicy policy = config.worker.http.outboundPolicy();
    return policy.opensAnything()
        ? "  Callbacks    http jobs of a namespace granted part of it MAY ALSO CALL "
            + policy.describe()
            + " (worker.http.allow); grant: PUT /api/v1/namespaces/default/egress"
            + " {\"allow\":[...]}"
        : "  Callbacks    http jobs may not call loopback or private addresses; for a receiver on"
            + " this machine: PUNCTUAL_HTTP_ALLOW=127.0.0.1/32, then PUT"
            + " /api/v1/namespaces/default/egress {\"allow\":[\"127.0.0.1/32\"]}";
  }

  /**
   * The admin key: PUNCTUAL_BOOTSTRAP_KEY's, or dev's own (made when its file is gone or its key
   * was revoked); null without authentication.
   */
  private static String apiKey(PunctualConfiguration config, Stores stores) {
    if (!config.auth.enabled) {
      return null;
    }
    if (config.auth.bootstrapKeyOrNull() != null) {
      return config.auth.bootstrapKeyOrNull();
    }
    return DevAdminKey.ensure(
        new ApiKeys(stores.database().jdbi(), stores.clock()),
        config.dataDirPath().resolve(DevAdminKey.FILE_NAME),
        stores.clock().instant());
  }

  /** What the banner says of the admin key: the dev key itself, or where the key comes from. */
  private static String adminKey(PunctualConfiguration config, String apiKey) {
    if (apiKey == null) {
      return "none: authentication is OFF (auth.enabled: false)";
    }
    if (config.auth.bootstrapKeyOrNull() != null) {
      return "the value of PUNCTUAL_BOOTSTRAP_KEY (auth.bootstrapKey)";
    }
    return apiKey + "  (also in " + config.dataDirPath().resolve(DevAdminKey.FILE_NAME) + ")";
  }

  @Override
  void started(ServerUrls urls, PunctualConfiguration config, Stop stop) {
    if (trainJobs == null) {
      return;
    }
    Path log = config.dataDirPath().resolve("training-worker.log");
    TrainingWorker worker;
    try {
      worker =
          trainWorkerCache == null
              ? null
              : TrainingWorker.start(trainWorkerCache, embedded, config.secrets.encryptionKey, log);
    } catch (IOException e) {
      stop.stop("training worker not started: " + e.getMessage(), 1);
      return;
    }
    String failed =
        worker == null
            ? "training run failed"
            : "training run failed (the training worker's log: " + log + ")";
    new TrainingRun(
            urls.application(),
            apiKey == null ? null : "Bearer " + apiKey,
            stores,
            trainJobs,
            worker)
        .start(
            ok -> {
              if (worker != null) {
                worker.close(); // stopped already unless the run failed
              }
              stop.stop(ok ? "training run done" : failed, ok ? 0 : 1);
            });
  }

  /** The curl option that sends the admin key, as a shell would expand it. */
  private static String authorizationHeader(PunctualConfiguration config) {
    if (!config.auth.enabled) {
      return "";
    }
    String key =
        config.auth.bootstrapKeyOrNull() != null
            ? "$PUNCTUAL_BOOTSTRAP_KEY"
            : "$(cat " + config.dataDirPath().resolve(DevAdminKey.FILE_NAME) + ")";
    return " -H \"Authorization: Bearer " + key + "\"";
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return List.of(
        "Punctual dev is running (API + worker + planner + reaper in one process)",
        "  API          " + urls.application() + "/api/v1/jobs",
        "  Schedules    " + urls.application() + "/api/v1/schedules",
        "  Health       " + admin(urls, "/healthcheck"),
        "  Metrics      " + admin(urls, "/metrics"),
        "  PostgreSQL   "
            + embedded.jdbcUrl()
            + "  (user "
            + EmbeddedStores.USER
            + ", no password)",
        "  Redis        " + embedded.redisUrl(),
        "  Data         " + embedded.dataDir(),
        "  Admin key    " + adminKey,
        "  Signing      the default namespace's callbacks and notices verify with the secret in "
            + signingSecret,
        callbacks(config),
        "Try: curl -s -X POST "
            + urls.application()
            + "/api/v1/jobs"
            + authorizationHeader(config)
            + " -H 'Content-Type: application/json' -d '{\"type\":\"noop\"}'",
        "Stop with Ctrl-C; data is kept (--fresh wipes it).");
  }
}
