package io.punctual.deploy.architecture;

import java.util.List;

/**
 * The Maven modules, each with the one root package all its main classes live under, and the
 * modules its main code may use (null: any; the wiring and the benchmarks). The order is the
 * build's: a module uses only modules above it.
 */
enum Modules {
  MODEL("model", "io.punctual.model"),
  HANDLER_API("handler-api", "io.punctual.handler", MODEL),
  COMMON("common", "io.punctual.common", MODEL),
  STORE("store", "io.punctual.store", MODEL, COMMON),
  QUEUE("queue", "io.punctual.queue", MODEL, COMMON, STORE),
  OUTBOUND_HTTP("outbound-http", "io.punctual.outbound", COMMON),
  CLIENT("client", "io.punctual.client"),
  EMBEDDED("embedded", "io.punctual.embedded"),
  SCHEDULES("schedules", "io.punctual.schedule", MODEL, COMMON, STORE),
  // Job, batch and workflow bodies: the API's routes and the app's transactional submit.
  REQUESTS("requests", "io.punctual.requests", MODEL, COMMON, STORE, OUTBOUND_HTTP),
  WORKER("worker", "io.punctual.worker", MODEL, HANDLER_API, COMMON, STORE, QUEUE, OUTBOUND_HTTP),
  // The worker: the API runs one for each remote worker of the worker protocol (api.remote).
  API_SERVER(
      "api-server",
      "io.punctual.api",
      MODEL,
      HANDLER_API,
      COMMON,
      STORE,
      QUEUE,
      OUTBOUND_HTTP,
      SCHEDULES,
      REQUESTS,
      WORKER),
  FAULTS("faults", "io.punctual.faults", API_SERVER),
  CRON_PLANNER("cron-planner", "io.punctual.planner", MODEL, COMMON, STORE, QUEUE, SCHEDULES),
  REAPER("reaper", "io.punctual.reaper", MODEL, COMMON, STORE, QUEUE),
  ALERTER("alerter", "io.punctual.alerter", MODEL, COMMON, STORE, OUTBOUND_HTTP),
  APP(
      "app",
      "io.punctual.app",
      MODEL,
      HANDLER_API,
      COMMON,
      STORE,
      QUEUE,
      OUTBOUND_HTTP,
      CLIENT,
      REQUESTS,
      WORKER,
      REAPER),
  // The worker's, Redis' and the queue's settings and the labelled job metrics: types of the app
  // module's API (its builders take WorkerSettings, RedisSettings, QueueSettings) that the starter
  // binds and reports; a priority's name (model) keys the queue's weights.
  SPRING_BOOT_STARTER(
      "spring-boot-starter",
      "io.punctual.spring",
      MODEL,
      HANDLER_API,
      CLIENT,
      COMMON,
      QUEUE,
      WORKER,
      APP),
  // The starter's tests on Spring Boot 3: test sources only.
  SPRING_BOOT3_TESTS("spring-boot3-tests", "io.punctual.springboot3", (Modules[]) null),
  DEPLOY("deploy", "io.punctual.deploy", (Modules[]) null),
  LOAD_TESTS("load-tests", "io.punctual.bench", (Modules[]) null),
  // An application to copy, not part of Punctual: a user's package, using the starter as any app.
  EXAMPLE_SPRING_BOOT_APP("examples/spring-boot-app", "com.example.orders", (Modules[]) null);

  private final String directory;
  private final String root;
  private final List<Modules> uses;

  Modules(String directory, String root, Modules... uses) {
    this.directory = directory;
    this.root = root;
    this.uses = uses == null ? null : List.of(uses);
  }

  String directory() {
    return directory;
  }

  String root() {
    return root;
  }

  /** The modules this one's main code may use; null for any. */
  List<Modules> uses() {
    return uses;
  }

  @Override
  public String toString() {
    return directory;
  }
}
