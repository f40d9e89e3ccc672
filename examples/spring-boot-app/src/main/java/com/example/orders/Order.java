package com.example.orders;

import java.time.Instant;

/** A row of the application's own {@code orders} table. */
public record Order(long id, String sku, int quantity, Instant confirmedAt) {}
