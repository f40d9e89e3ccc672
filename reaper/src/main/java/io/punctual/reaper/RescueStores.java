package io.punctual.reaper;

import io.punctual.queue.ReadyQueue;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.lease.Redlock;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.store.JobQueries;
import io.punctual.store.JobTransitions;

/**
 * What a rescue reads and changes: the stale attempts and their transition in PostgreSQL; in Redis
 * the leases that tell a live worker, the ready queue a rescued job goes back to (when due within
 * the horizon), the limit slots its attempt held, and each worker's claims not written yet (null:
 * not read).
 */
public record RescueStores(
    JobQueries queries,
    JobTransitions transitions,
    Redlock redlock,
    ReadyQueue queue,
    QueueSettings queueSettings,
    LimitHolds holds,
    HeldClaims held) {}
