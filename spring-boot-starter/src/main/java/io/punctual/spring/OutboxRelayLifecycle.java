package io.punctual.spring;

import io.punctual.app.outbox.OutboxRelay;
import org.springframework.context.SmartLifecycle;

/**
 * The outbox relay, started with the application context (in the last phase, after every other
 * bean) and stopped with it first: the pass under way ends, its rows forwarded or recorded.
 */
public final class OutboxRelayLifecycle implements SmartLifecycle {
  private final OutboxRelay relay;
  private volatile boolean running;

  public OutboxRelayLifecycle(OutboxRelay relay) {
    this.relay = relay;
  }

  @Override
  public synchronized void start() {
    if (!running) {
      relay.start();
      running = true;
    }
  }

  @Override
  public synchronized void stop() {
    if (running) {
      running = false;
      try {
        relay.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** The relay (for its backlog; started and stopped here). */
  public OutboxRelay relay() {
    return relay;
  }
}
