package com.example.orders;

import io.punctual.client.JobRequest;
import io.punctual.spring.TransactionalJobs;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order's row and its confirmation job commit together or not at all. */
@Service
public class OrderService {
  private final OrderRepository orders;
  private final TransactionalJobs jobs;

  public OrderService(OrderRepository orders, TransactionalJobs jobs) {
    this.orders = orders;
    this.jobs = jobs;
  }

  /** The order placed and the id of the job that confirms it. */
  public record Placed(long orderId, UUID jobId) {}

  /**
   * Saves the order, submits its confirmation job in the same transaction, then reserves the
   * stock. Not enough stock throws {@link OutOfStockException}: the transaction rolls back and
   * neither the order nor the job exists (the job is put into Redis only after the commit).
   */
  @Transactional
  public Placed place(String sku, int quantity) {
    long id = orders.insert(sku, quantity);
    UUID job =
        jobs.submit(
            JobRequest.builder(ConfirmOrderHandler.TYPE)
                .payload(Map.of("orderId", id))
                .idempotencyKey("order-" + id + "-confirm")
                .build());
    if (!orders.reserve(sku, quantity)) {
      throw new OutOfStockException(sku);
    }
    return new Placed(id, job);
  }
}
