package io.punctual.worker.complete;

import io.punctual.queue.ReadyQueue;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.lease.Redlock;
import io.punctual.store.AttemptReadBack;
import io.punctual.store.JobTransitions;
import io.punctual.worker.limit.SlotHolders;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Where finished attempts go: their transitions in PostgreSQL; in Redis the leases they release,
 * the ready queue near retries go back to (within {@code queueSettings.horizon}) and the limit
 * slots they give back; and who hears which namespaces' attempts ended ({@code namespacesFreed},
 * after the commit that gave their running slots back); {@code readBack}: what a write whose commit
 * had an unknown outcome left.
 */
public record CompletionStores(
    JobTransitions transitions,
    AttemptReadBack readBack,
    Redlock redlock,
    ReadyQueue queue,
    QueueSettings queueSettings,
    SlotHolders limits,
    Consumer<Set<String>> namespacesFreed) {}
