package com.example.orders;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders} places an order; {@code GET /orders/{id}} shows whether it is confirmed. */
@RestController
@RequestMapping("/orders")
public class OrderController {
  private final OrderService service;
  private final OrderRepository orders;

  public OrderController(OrderService service, OrderRepository orders) {
    this.service = service;
    this.orders = orders;
  }

  /** The body of {@code POST /orders}. */
  public record NewOrder(String sku, int quantity) {}

  @PostMapping
  public ResponseEntity<OrderService.Placed> place(@RequestBody NewOrder order) {
    if (order.sku() == null || order.quantity() < 1) {
      return ResponseEntity.badRequest().build();
    }
    OrderService.Placed placed = service.place(order.sku(), order.quantity());
    return ResponseEntity.created(URI.create("/orders/" + placed.orderId())).body(placed);
  }

  @GetMapping("/{id}")
  public ResponseEntity<Order> get(@PathVariable long id) {
    return ResponseEntity.of(orders.find(id));
  }

  @ExceptionHandler(OutOfStockException.class)
  public ResponseEntity<Map<String, String>> outOfStock(OutOfStockException e) {
    return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", e.getMessage()));
  }
}
