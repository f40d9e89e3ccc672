package io.punctual.api.hostile;

import io.punctual.api.hostile.Route.BodyKind;
import io.punctual.api.hostile.Route.Effect;
import io.punctual.api.hostile.Route.IdKind;
import java.util.List;

/** Every route of the API (the resources under io.punctual.api), as the corpus probes them. */
final class Routes {
  private Routes() {}

  private static final List<String> NO_QUERY = List.of();
  private static final String JOBS = "/api/v1/jobs";
  private static final String WORKFLOWS = "/api/v1/workflows";
  private static final String SCHEDULES = "/api/v1/schedules";
  private static final String KEYS = "/api/v1/keys";
  private static final String ALERT_RULES = "/api/v1/alert-rules";
  private static final String NAMESPACES = "/api/v1/namespaces";
  private static final String WORKERS = "/api/v1/workers";

  static final List<Route> ALL =
      List.of(
          // jobs
          new Route("POST", JOBS, IdKind.NONE, BodyKind.JOB, NO_QUERY, Effect.JOB),
          new Route(
              "POST", JOBS + "/batch", IdKind.NONE, BodyKind.BATCH, NO_QUERY, Effect.JOB_ITEMS),
          new Route(
              "GET",
              JOBS,
              IdKind.NONE,
              BodyKind.NONE,
              List.of(
                  "status",
                  "type",
                  "tag",
                  "from",
                  "to",
                  "idempotencyKey",
                  "payload",
                  "limit",
                  "cursor"),
              Effect.NONE),
          new Route("GET", JOBS + "/{id}", IdKind.JOB, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "POST", JOBS + "/{id}/cancel", IdKind.JOB, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "GET", JOBS + "/{id}/executions", IdKind.JOB, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "GET",
              JOBS + "/{id}/logs",
              IdKind.JOB,
              BodyKind.NONE,
              List.of("attempt", "after", "limit"),
              Effect.NONE),
          new Route(
              "GET",
              JOBS + "/{id}/children",
              IdKind.JOB,
              BodyKind.NONE,
              List.of("limit", "cursor"),
              Effect.NONE),
          new Route("POST", JOBS + "/{id}/retry", IdKind.JOB, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "GET", JOBS + "/{id}/diagnosis", IdKind.JOB, BodyKind.NONE, NO_QUERY, Effect.NONE),
          // bulk actions (the corpus's bodies are dry runs: they count, and act on nothing)
          new Route(
              "POST", JOBS + "/bulk", IdKind.NONE, BodyKind.BULK_ACTION, NO_QUERY, Effect.NONE),
          new Route(
              "GET", JOBS + "/bulk/{id}", IdKind.BULK_ACTION, BodyKind.NONE, NO_QUERY, Effect.NONE),
          // statistics
          new Route(
              "GET",
              "/api/v1/stats",
              IdKind.NONE,
              BodyKind.NONE,
              List.of("from", "to", "groupBy"),
              Effect.NONE),
          new Route(
              "GET",
              "/api/v1/stats/series",
              IdKind.NONE,
              BodyKind.NONE,
              List.of("from", "to"),
              Effect.NONE),
          // workflows
          new Route("POST", WORKFLOWS, IdKind.NONE, BodyKind.WORKFLOW, NO_QUERY, Effect.WORKFLOW),
          new Route(
              "GET", WORKFLOWS + "/{id}", IdKind.WORKFLOW, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "POST",
              WORKFLOWS + "/{id}/cancel",
              IdKind.WORKFLOW,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          // schedules
          new Route("POST", SCHEDULES, IdKind.NONE, BodyKind.SCHEDULE, NO_QUERY, Effect.SCHEDULE),
          new Route(
              "GET",
              SCHEDULES,
              IdKind.NONE,
              BodyKind.NONE,
              List.of("status", "limit", "cursor"),
              Effect.NONE),
          new Route(
              "GET", SCHEDULES + "/{id}", IdKind.SCHEDULE, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "PUT",
              SCHEDULES + "/{id}",
              IdKind.SCHEDULE,
              BodyKind.SCHEDULE_REPLACE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "DELETE",
              SCHEDULES + "/{id}",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.SCHEDULE_DELETED),
          new Route(
              "POST",
              SCHEDULES + "/{id}/pause",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              SCHEDULES + "/{id}/resume",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              SCHEDULES + "/{id}/trigger",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.JOB),
          new Route(
              "GET",
              SCHEDULES + "/{id}/preview",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              List.of("count", "from"),
              Effect.NONE),
          new Route(
              "GET",
              SCHEDULES + "/{id}/jobs",
              IdKind.SCHEDULE,
              BodyKind.NONE,
              List.of("status", "limit", "cursor"),
              Effect.NONE),
          // workers
          new Route(
              "GET", "/api/v1/workers", IdKind.NONE, BodyKind.NONE, List.of("limit"), Effect.NONE),
          // the caller's key; the queues' depth
          new Route("GET", "/api/v1/me", IdKind.NONE, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "GET", "/api/v1/queues/depth", IdKind.NONE, BodyKind.NONE, NO_QUERY, Effect.NONE),
          // namespaces: {id} is a namespace's name
          new Route(
              "POST", NAMESPACES, IdKind.NONE, BodyKind.NAMESPACE, NO_QUERY, Effect.NAMESPACE),
          new Route(
              "GET",
              NAMESPACES,
              IdKind.NONE,
              BodyKind.NONE,
              List.of("limit", "cursor"),
              Effect.NONE),
          new Route(
              "GET", NAMESPACES + "/{id}", IdKind.NAMESPACE, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route(
              "PUT",
              NAMESPACES + "/{id}/quota",
              IdKind.NAMESPACE,
              BodyKind.QUOTA,
              NO_QUERY,
              Effect.QUOTA),
          // a weight change is not in the ledger: the corpus checks its refusals, not the weights
          new Route(
              "PUT",
              NAMESPACES + "/{id}/weight",
              IdKind.NAMESPACE,
              BodyKind.WEIGHT,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              NAMESPACES + "/{id}/deactivate",
              IdKind.NAMESPACE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.ACTIVE),
          new Route(
              "POST",
              NAMESPACES + "/{id}/reactivate",
              IdKind.NAMESPACE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.ACTIVE),
          // a namespace's egress grant and its signing secrets (the ledger does not count them)
          new Route(
              "PUT",
              NAMESPACES + "/{id}/egress",
              IdKind.NAMESPACE,
              BodyKind.EGRESS,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              NAMESPACES + "/{id}/signing-secrets",
              IdKind.NAMESPACE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "GET",
              NAMESPACES + "/{id}/signing-secrets",
              IdKind.NAMESPACE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          // a secret of no namespace: its deletion is a 404 whatever the namespace
          new Route(
              "DELETE",
              NAMESPACES + "/{id}/signing-secrets/5f0c2b53-8a3e-4b8e-9c1f-000000000001",
              IdKind.NAMESPACE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          // alert rules and their deliveries
          new Route("POST", ALERT_RULES, IdKind.NONE, BodyKind.ALERT_RULE, NO_QUERY, Effect.NONE),
          new Route(
              "GET",
              ALERT_RULES,
              IdKind.NONE,
              BodyKind.NONE,
              List.of("limit", "cursor"),
              Effect.NONE),
          new Route(
              "GET",
              ALERT_RULES + "/{id}",
              IdKind.ALERT_RULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "PUT",
              ALERT_RULES + "/{id}",
              IdKind.ALERT_RULE,
              BodyKind.ALERT_RULE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "DELETE",
              ALERT_RULES + "/{id}",
              IdKind.ALERT_RULE,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "GET",
              ALERT_RULES + "/{id}/deliveries",
              IdKind.ALERT_RULE,
              BodyKind.NONE,
              List.of("limit", "cursor"),
              Effect.NONE),
          // audit
          new Route(
              "GET",
              "/api/v1/audit",
              IdKind.NONE,
              BodyKind.NONE,
              List.of("from", "to", "namespace", "keyId", "action", "limit", "cursor"),
              Effect.NONE),
          // keys
          // the worker protocol
          new Route(
              "POST", WORKERS, IdKind.NONE, BodyKind.WORKER_REGISTRATION, NO_QUERY, Effect.NONE),
          new Route(
              "DELETE",
              WORKERS + "/{id}",
              IdKind.REMOTE_WORKER,
              BodyKind.NONE,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              WORKERS + "/{id}/claim",
              IdKind.REMOTE_WORKER,
              BodyKind.CLAIM,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              WORKERS + "/{id}/heartbeat",
              IdKind.REMOTE_WORKER,
              BodyKind.HEARTBEAT,
              NO_QUERY,
              Effect.NONE),
          new Route(
              "POST",
              WORKERS + "/{id}/complete",
              IdKind.REMOTE_WORKER,
              BodyKind.COMPLETION,
              NO_QUERY,
              Effect.NONE),
          new Route("POST", KEYS, IdKind.NONE, BodyKind.KEY, NO_QUERY, Effect.KEY),
          new Route(
              "GET", KEYS, IdKind.NONE, BodyKind.NONE, List.of("limit", "cursor"), Effect.NONE),
          new Route("GET", KEYS + "/{id}", IdKind.KEY, BodyKind.NONE, NO_QUERY, Effect.NONE),
          new Route("DELETE", KEYS + "/{id}", IdKind.KEY, BodyKind.NONE, NO_QUERY, Effect.NONE));
}
