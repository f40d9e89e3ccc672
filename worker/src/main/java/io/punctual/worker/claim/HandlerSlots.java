package io.punctual.worker.claim;

import io.punctual.model.Job;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * The worker's handler slots ({@code worker.concurrency} permits) and what starts a confirmed job
 * on the slot already taken for it.
 */
public record HandlerSlots(Semaphore slots, Consumer<Job> starter) {}
