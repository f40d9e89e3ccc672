package io.punctual.common.random;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * A {@link RandomGenerator} safe to share between threads: every call draws from the calling
 * thread's {@link ThreadLocalRandom}. (A {@code ThreadLocalRandom.current()} captured on one thread
 * and used on others draws from the wrong thread's seed, which may never have been initialised.)
 */
public final class PerThreadRandom implements RandomGenerator {
  public static final PerThreadRandom INSTANCE = new PerThreadRandom();

  private PerThreadRandom() {}

  @Override
  public long nextLong() {
    return ThreadLocalRandom.current().nextLong();
  }

  @Override
  public double nextDouble() {
    return ThreadLocalRandom.current().nextDouble();
  }
}
