package io.punctual.worker.claim;

import io.punctual.queue.ReadyQueue;
import io.punctual.queue.lease.Redlock;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.store.JobQueries;
import io.punctual.store.JobTransitions;
import io.punctual.worker.limit.SlotHolders;
import java.time.Clock;

/**
 * Where a claim reads and writes, and the clock it reads: the ready queues and the leases in Redis,
 * the claim's transition and the reads of pending jobs in PostgreSQL, the limits the claimed jobs
 * hold slots of, and the worker's held-claims set (null: claims are written at once).
 */
public record ClaimStores(
    Clock clock,
    ReadyQueue queue,
    Redlock redlock,
    JobQueries queries,
    JobTransitions transitions,
    SlotHolders limits,
    HeldClaims held) {}
