package io.punctual.api.hostile;

import java.util.List;

/**
 * One route of the API as the corpus sees it: its method and path ({@code {id}} stands for an
 * existing object of kind {@code idKind}), the body it takes, its query parameters, and what a 2xx
 * answer to it writes (so that the ledger can tell what must be stored afterwards). A new route is
 * one more entry in {@link Routes#ALL}.
 */
record Route(
    String method,
    String template,
    IdKind idKind,
    BodyKind body,
    List<String> query,
    Effect effect) {

  /** The kind of object a path's {@code {id}} names. */
  enum IdKind {
    NONE,
    JOB,
    WORKFLOW,
    SCHEDULE,
    KEY,
    BULK_ACTION,
    ALERT_RULE,
    /** A namespace's name (not a UUID). */
    NAMESPACE,
    /** A remote worker registered over the worker protocol ({@code remote-<uuid>}). */
    REMOTE_WORKER
  }

  /** The body a route takes (and so the fields the corpus mutates). */
  enum BodyKind {
    NONE,
    JOB,
    BATCH,
    WORKFLOW,
    SCHEDULE,
    SCHEDULE_REPLACE,
    KEY,
    BULK_ACTION,
    ALERT_RULE,
    NAMESPACE,
    QUOTA,
    WEIGHT,
    /** A namespace's egress grant. */
    EGRESS,
    /** The worker protocol: a registration, a claim, a heartbeat, a completion. */
    WORKER_REGISTRATION,
    CLAIM,
    HEARTBEAT,
    COMPLETION
  }

  /** What a 2xx answer stores: the ledger reads the ids from the answer's body. */
  enum Effect {
    NONE,
    JOB,
    JOB_ITEMS,
    WORKFLOW,
    SCHEDULE,
    SCHEDULE_DELETED,
    KEY,
    /** A namespace created (its name in the answer). */
    NAMESPACE,
    /** A namespace's quota replaced (its quota_version grows by one). */
    QUOTA,
    /** A namespace deactivated or reactivated (the answer says which). */
    ACTIVE
  }

  Route {
    query = List.copyOf(query);
  }

  String name() {
    return method + " " + template;
  }
}
