package com.example.orders;

/** Not enough stock for an order: its transaction rolls back, the order and its job with it. */
public class OutOfStockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OutOfStockException(String sku) {
    super("not enough stock of " + sku);
  }
}
