package io.punctual.api.remote;

import io.punctual.handler.JobContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One attempt a remote worker holds: its context (the job, its cancellation, its progress and log)
 * and the answer its handler thread waits for, the remote worker's completion.
 */
final class RemoteAttempt {
  private final JobContext ctx;
  private final CompletableFuture<RemoteResult> result = new CompletableFuture<>();

  RemoteAttempt(JobContext ctx) {
    this.ctx = ctx;
  }

  JobContext ctx() {
    return ctx;
  }

  /** Hands the remote worker's completion to the waiting handler; false if it had one already. */
  boolean complete(RemoteResult r) {
    return result.complete(r);
  }

  /** Ends the wait without an answer (the remote worker is gone): the handler reports nothing. */
  void abandon() {
    result.completeExceptionally(new IllegalStateException("remote worker gone"));
  }

  /** Waits for the completion; an interrupt (timeout, cancel, shutdown) ends the wait. */
  RemoteResult await() throws InterruptedException {
    try {
      return result.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("remote worker gone", e.getCause());
    }
  }
}
