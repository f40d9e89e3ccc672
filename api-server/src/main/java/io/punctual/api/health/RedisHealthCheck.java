package io.punctual.api.health;

import com.codahale.metrics.health.HealthCheck;
import io.punctual.queue.redis.RedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Healthy when Redis answers {@code PING} within the timeout. */
public final class RedisHealthCheck extends HealthCheck {
  private final RedisConnection redis;
  private final Duration timeout;

  public RedisHealthCheck(RedisConnection redis, Duration timeout) {
    this.redis = redis;
    this.timeout = timeout;
  }

  @Override
  protected Result check() throws Exception {
    String pong = redis.async().ping().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return "PONG".equals(pong) ? Result.healthy() : Result.unhealthy("PING returned " + pong);
  }
}
