package com.example.orders;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import java.time.Clock;
import org.springframework.stereotype.Component;

/**
 * Runs the {@code order.confirm} jobs on the embedded worker the starter builds from every {@link
 * JobHandler} bean. Jobs may run more than once (a worker dies mid-job): confirming twice is
 * harmless here.
 */
@Component
public class ConfirmOrderHandler implements JobHandler {
  static final String TYPE = "order.confirm";

  private final OrderRepository orders;
  private final Clock clock;

  public ConfirmOrderHandler(OrderRepository orders, Clock clock) {
    this.orders = orders;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public JobResult handle(JobContext ctx) {
    long id = ctx.payload().path("orderId").asLong();
    orders.confirm(id, clock.instant());
    return JobResult.success();
  }
}
