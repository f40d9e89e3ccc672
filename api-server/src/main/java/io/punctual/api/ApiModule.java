package io.punctual.api;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import io.dropwizard.lifecycle.AutoCloseableManager;
import io.punctual.api.alerts.AlertRulesResource;
import io.punctual.api.audit.Actor;
import io.punctual.api.audit.AuditFilter;
import io.punctual.api.audit.AuditLog;
import io.punctual.api.audit.AuditResource;
import io.punctual.api.auth.ApiKeys;
import io.punctual.api.auth.KeyAuthenticator;
import io.punctual.api.auth.KeyBootstrapAtStart;
import io.punctual.api.auth.RefusalPacing;
import io.punctual.api.bulk.BulkActionStore;
import io.punctual.api.bulk.BulkResource;
import io.punctual.api.bulk.BulkRunner;
import io.punctual.api.config.AllowedHosts;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.config.AuthSettings;
import io.punctual.api.console.Console;
import io.punctual.api.context.Authorizer;
import io.punctual.api.context.PermissionFeature;
import io.punctual.api.context.ReadRateLimit;
import io.punctual.api.context.RequestContext;
import io.punctual.api.diagnosis.Diagnoser;
import io.punctual.api.diagnosis.HoldCheck;
import io.punctual.api.diagnosis.JobDiagnosisResource;
import io.punctual.api.health.PostgresHealthCheck;
import io.punctual.api.health.RedisHealthCheck;
import io.punctual.api.http.ContentEncodingFilter;
import io.punctual.api.http.CrossSiteRefusal;
import io.punctual.api.http.LocalOriginFilter;
import io.punctual.api.http.QueryTextFilter;
import io.punctual.api.http.RequestSizeLimitFilter;
import io.punctual.api.jobs.AfterCommitHook;
import io.punctual.api.jobs.JobActions;
import io.punctual.api.jobs.JobListing;
import io.punctual.api.jobs.JobLogsResource;
import io.punctual.api.jobs.JobRetryResource;
import io.punctual.api.jobs.JobSubmitter;
import io.punctual.api.jobs.JobsResource;
import io.punctual.api.jobs.QueueWriter;
import io.punctual.api.jobs.SubmitFastPath;
import io.punctual.api.keys.KeysResource;
import io.punctual.api.keys.MeResource;
import io.punctual.api.limits.LimitsResource;
import io.punctual.api.limits.QueuesResource;
import io.punctual.api.namespaces.NamespaceCache;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.api.namespaces.NamespacesResource;
import io.punctual.api.namespaces.SigningSecretsResource;
import io.punctual.api.openapi.OpenApiResource;
import io.punctual.api.problem.EmptyOptionalExceptionMapper;
import io.punctual.api.problem.IllegalStateExceptionMapper;
import io.punctual.api.problem.JsonProcessingExceptionMapper;
import io.punctual.api.problem.ProblemErrorHandler;
import io.punctual.api.problem.ProblemExceptionMapper;
import io.punctual.api.problem.RequestRejectedExceptionMapper;
import io.punctual.api.problem.ThrowableMapper;
import io.punctual.api.problem.ViolationExceptionMapper;
import io.punctual.api.problem.WebApplicationExceptionMapper;
import io.punctual.api.queues.QueueDepthResource;
import io.punctual.api.remote.RemoteWorkerResource;
import io.punctual.api.remote.RemoteWorkers;
import io.punctual.api.schedules.ScheduleRequestParser;
import io.punctual.api.schedules.SchedulesResource;
import io.punctual.api.stats.StatsResource;
import io.punctual.api.stats.StatsWarmup;
import io.punctual.api.workers.WorkersResource;
import io.punctual.api.workflows.WorkflowsResource;
import io.punctual.common.json.Json;
import io.punctual.queue.Stores;
import io.punctual.queue.rate.SubmitRateLimiter;
import io.punctual.requests.jobs.JobRequestParser;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.schedule.store.ScheduleJobs;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AuditStore;
import io.punctual.store.PayloadIndex;
import io.punctual.store.alert.AlertRules;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.store.stats.StatsReader;
import io.punctual.worker.config.WorkerSettings;
import jakarta.servlet.DispatcherType;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the REST API ({@code /api/v1}: jobs, schedules, workers, namespaces, keys, audit) and the
 * web console ({@code /ui}) into a Dropwizard environment: resources, the namespace filter, the
 * body size cap, the audit log, problem+json exception mappers and the store health checks.
 */
public final class ApiModule {
  private static final Logger LOG = LoggerFactory.getLogger(ApiModule.class);

  private ApiModule() {}

  /** The API with schedules' smallest {@code every} at its default, PT1S. */
  public static void register(
      Environment env,
      Stores stores,
      ApiSettings settings,
      AuthSettings auth,
      SigningSecrets signingSecrets) {
    register(env, stores, settings, auth, ScheduleDefinition.DEFAULT_MIN_INTERVAL, signingSecrets);
  }

  /**
   * {@code minInterval}: the smallest {@code every} of a schedule ({@code planner.minInterval});
   * {@code signingSecrets}: the namespaces' signing secrets (every namespace without one gets its
   * first as the API starts).
   *
   * @throws IllegalStateException when authentication is on and no admin key exists (see {@link
   *     KeyBootstrapAtStart})
   */
  public static void register(
      Environment env,
      Stores stores,
      ApiSettings settings,
      AuthSettings auth,
      Duration minInterval,
      SigningSecrets signingSecrets) {
    settings.validate();
    auth.validate();
    ScheduleRequestParser scheduleParser =
        new ScheduleRequestParser(settings.jobFieldRules(), minInterval);
    Json.strictForRequests(Json.configure(env.getObjectMapper()));

    QueueWriter queue = new QueueWriter(stores.queue(), settings.redisTimeout);
    NamespaceCache namespaces =
        new NamespaceCache(stores.namespaces(), stores.clock(), settings.namespaceRefresh);
    env.lifecycle().manage(namespaces);
    SubmitRateLimiter rateLimiter =
        new SubmitRateLimiter(
            stores.redisClient(), stores.keys(), stores.clock(), settings.redisTimeout);
    env.lifecycle().manage(new AutoCloseableManager(rateLimiter));
    NamespaceGate gate = new NamespaceGate(namespaces, rateLimiter, env.metrics());
    JobSubmitter submitter =
        new JobSubmitter(
            gate,
            new JobSubmitter.SubmitStores(
                stores.submissions(), stores.workflows(), queue, stores.queueSettings()),
            new JobSubmitter.Grouping(settings.submitGroupConcurrency, settings.maxBatchSize),
            stores.clock(),
            env.metrics(),
            AfterCommitHook.installed());

    ApiKeys keys = new ApiKeys(stores.database().jdbi(), stores.clock());
    KeyAuthenticator authenticator = null;
    if (auth.enabled) {
      KeyBootstrapAtStart bootstrap = new KeyBootstrapAtStart(auth, keys);
      bootstrap.start(); // now, so that a missing admin key stops the start with its reason
      env.lifecycle().manage(new StopOnly(bootstrap));
      authenticator = new KeyAuthenticator(keys, stores.clock(), auth, env.metrics());
    } else {
      AllowedHosts hosts = AllowedHosts.of(settings.allowedHosts);
      LOG.warn(
          "Authentication is OFF (auth.enabled: false): anyone who reaches the API acts as an admin"
              + " of every namespace. Only for a private network. Changes are taken only with a"
              + " JSON Content-Type and a Host of this server (localhost, 127.0.0.1, [::1], the"
              + " address it was reached on) or of api.allowedHosts: {}",
          hosts.describe());
      // ahead of every other filter of the application port (the submit fast path included)
      env.servlets()
          .addFilter("punctual-local-origin", new LocalOriginFilter(hosts, env.getObjectMapper()))
          .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }
    Authorizer authorizer =
        new Authorizer(
            settings.defaultNamespace,
            authenticator,
            new RefusalPacing(auth.refusalsPerSecondPerSource, stores.clock(), env.metrics()));
    AuditStore auditStore = new AuditStore(stores.database().jdbi());
    AuditLog audit = new AuditLog(auditStore, stores.clock(), settings.audit, env.metrics());
    env.lifecycle().manage(audit);
    JobRequestParser parser = new JobRequestParser(settings.submitLimits());
    JerseyEnvironment jersey = env.jersey();
    jersey.register(new ContentEncodingFilter());
    jersey.register(new RequestSizeLimitFilter(settings.maxRequestBytes));
    jersey.register(new CrossSiteRefusal());
    jersey.register(authorizer);
    jersey.register(new PermissionFeature());
    if (settings.readsPerSecondPerKey > 0) {
      jersey.register(
          new ReadRateLimit(settings.readsPerSecondPerKey, stores.clock(), env.metrics()));
    }
    jersey.register(new QueryTextFilter());
    jersey.register(new AuditFilter(audit, ApiModule::caller));
    jersey.register(new AuditResource(auditStore, settings, ApiModule::caller));
    JobListing listing =
        new JobListing(settings, new PayloadIndex(stores.database().jdbi()), stores.clock());
    JobActions actions =
        new JobActions(stores.queries(), stores.transitions(), submitter::enqueueReleased, queue);
    AttemptOutputs outputs = new AttemptOutputs(stores.database().jdbi());
    jersey.register(
        new JobsResource(stores.queries(), actions, submitter, parser, listing, outputs));
    jersey.register(new JobLogsResource(stores.queries(), outputs));
    registerOperations(env, stores, listing, actions, gate);
    if (settings.submitFastPath) {
      env.servlets()
          .addFilter(
              "punctual-submit-fast-path",
              new SubmitFastPath(
                  authorizer,
                  parser,
                  submitter,
                  audit,
                  env.getObjectMapper(),
                  settings.maxRequestBytes,
                  env.metrics()))
          .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }
    jersey.register(
        new NamespacesResource(stores.namespaces(), namespaces, signingSecrets, settings));
    jersey.register(new SigningSecretsResource(stores.namespaces(), signingSecrets));
    firstSigningSecrets(signingSecrets);
    RemoteWorkers remote =
        new RemoteWorkers(stores, settings.remoteWorkers, WorkerSettings::new, env.metrics());
    env.lifecycle().manage(remote);
    // At the start of the HTTP server's stop, before it waits for requests in flight: a long poll
    // (up to api.remoteWorkers.maxWait) must not hold the process's shutdown.
    env.lifecycle()
        .addEventListener(
            new org.eclipse.jetty.util.component.LifeCycle.Listener() {
              @Override
              public void lifeCycleStopping(org.eclipse.jetty.util.component.LifeCycle event) {
                remote.drain();
              }
            });
    jersey.register(new WorkersResource(stores.workers(), settings, remote));
    jersey.register(new RemoteWorkerResource(remote, settings.jobFieldRules()));
    jersey.register(new OpenApiResource());
    jersey.register(
        new AlertRulesResource(
            new AlertRules(stores.database().jdbi(), stores.clock()),
            stores.transitions().alerts(),
            settings));
    jersey.register(new LimitsResource(stores.limits()));
    jersey.register(new QueuesResource(stores.limits(), stores.holds()));
    jersey.register(new KeysResource(keys, authenticator, settings, stores.clock()));
    jersey.register(new MeResource());
    jersey.register(
        new QueueDepthResource(
            stores.redis(), stores.keys(), stores.clock(), settings.redisTimeout));
    jersey.register(new WorkflowsResource(stores.workflows(), submitter, queue, settings));
    ScheduleJobs scheduleJobs =
        new ScheduleJobs(
            stores.database().jdbi(), stores.submissions(), stores.queries(), stores.clock());
    jersey.register(
        new SchedulesResource(
            gate,
            new ScheduleDefinitions(stores.database().jdbi(), scheduleJobs, stores.clock()),
            scheduleJobs,
            queue,
            scheduleParser,
            settings,
            stores.clock()));

    Console.register(env);

    // Registered by us, these take precedence over Dropwizard's default mappers of the same types
    // (Throwable, JsonProcessingException, JerseyViolationException, IllegalStateException,
    // EmptyOptionalException), so every error leaves as application/problem+json.
    jersey.register(new ProblemExceptionMapper());
    jersey.register(new RequestRejectedExceptionMapper());
    jersey.register(new JsonProcessingExceptionMapper());
    jersey.register(new WebApplicationExceptionMapper());
    jersey.register(new ViolationExceptionMapper());
    jersey.register(new IllegalStateExceptionMapper());
    jersey.register(new EmptyOptionalExceptionMapper());
    jersey.register(new ThrowableMapper());

    // Jetty's own refusals (before Jersey runs, or from the servlet layer) as problem+json too.
    ProblemErrorHandler errors = new ProblemErrorHandler();
    env.getApplicationContext().setErrorHandler(errors);
    env.lifecycle().addServerLifecycleListener(server -> server.setErrorHandler(errors));

    env.healthChecks().register("postgres", new PostgresHealthCheck(stores.database()));
    env.healthChecks()
        .register("redis", new RedisHealthCheck(stores.redis(), settings.redisTimeout));
  }

  /**
   * The operations console's routes: retry, bulk actions, diagnosis, statistics. {@code holds}
   * ({@link HoldCheck}): what else may hold a pending job, for its diagnosis (pause, limits).
   */
  private static void registerOperations(
      Environment env, Stores stores, JobListing listing, JobActions actions, NamespaceGate gate) {
    ApiSettings settings = listing.settings();
    JerseyEnvironment jersey = env.jersey();
    jersey.register(new JobRetryResource(actions, gate));
    BulkActionStore bulkStore = new BulkActionStore(stores.database().jdbi(), stores.clock());
    BulkRunner bulkRunner =
        new BulkRunner(
            bulkStore,
            actions,
            gate::roomFor,
            new BulkRunner.Pacing(settings.bulkBatchSize, settings.bulkStaleAfter),
            stores.clock(),
            BulkRunner.newOwner());
    env.lifecycle().manage(bulkRunner);
    jersey.register(
        new BulkResource(stores.queries(), listing, bulkStore, bulkRunner, settings.bulkMaxJobs));
    List<HoldCheck> holds = List.of();
    jersey.register(
        new JobDiagnosisResource(
            stores.queries(),
            new Diagnoser(
                stores.queries(), stores.workers(), stores.namespaces(), holds, stores.clock())));
    StatsReader stats = new StatsReader(stores.database().jdbi());
    jersey.register(new StatsResource(stats, stores.clock()));
    env.lifecycle().manage(new StatsWarmup(stats, stores.clock(), settings.statsWarmup));
  }

  /**
   * Every namespace with a row gets its first signing secret now if it has none (those made before
   * V24 among them). PostgreSQL away at start delays nothing: a namespace without a secret gets one
   * when it first signs.
   */
  private static void firstSigningSecrets(SigningSecrets signingSecrets) {
    try {
      int made = signingSecrets.ensureEvery();
      if (made > 0) {
        LOG.info("made a first signing secret for {} namespaces without one", made);
      }
    } catch (RuntimeException e) {
      LOG.warn("signing secrets not checked at start (made when first used): {}", e.toString());
    }
  }

  /** Stops {@code managed} with the server; it was started already. */
  private record StopOnly(io.dropwizard.lifecycle.Managed managed)
      implements io.dropwizard.lifecycle.Managed {
    @Override
    public void stop() throws Exception {
      managed.stop();
    }
  }

  /**
   * The sender of a request as the Authorizer resolved it, for the audit log; null if it did not.
   */
  private static Actor caller(ContainerRequestContext request) {
    RequestContext context;
    try {
      context = RequestContext.of(request);
    } catch (IllegalStateException refusedBeforeResolved) {
      return null;
    }
    return SubmitFastPath.actor(context);
  }
}
