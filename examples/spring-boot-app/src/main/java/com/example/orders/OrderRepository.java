package com.example.orders;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The application's own tables, through Spring's {@link JdbcClient}. */
@Repository
public class OrderRepository {
  private final JdbcClient jdbc;

  public OrderRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Inserts an order and returns its id. */
  public long insert(String sku, int quantity) {
    return jdbc.sql("INSERT INTO orders (sku, quantity) VALUES (?, ?) RETURNING id")
        .params(sku, quantity)
        .query(Long.class)
        .single();
  }

  /** Takes {@code quantity} out of the stock of {@code sku}; false when there is not enough. */
  public boolean reserve(String sku, int quantity) {
    return jdbc.sql("UPDATE stock SET available = available - ? WHERE sku = ? AND available >= ?")
            .params(quantity, sku, quantity)
            .update()
        == 1;
  }

  /** Marks an order confirmed; false when it does not exist. */
  public boolean confirm(long id, Instant at) {
    return jdbc.sql("UPDATE orders SET confirmed_at = ? WHERE id = ? AND confirmed_at IS NULL")
            .params(Timestamp.from(at), id)
            .update()
        == 1;
  }

  public Optional<Order> find(long id) {
    return jdbc.sql("SELECT id, sku, quantity, confirmed_at FROM orders WHERE id = ?")
        .param(id)
        .query(
            (rs, row) -> {
              Timestamp confirmed = rs.getTimestamp("confirmed_at");
              return new Order(
                  rs.getLong("id"),
                  rs.getString("sku"),
                  rs.getInt("quantity"),
                  confirmed == null ? null : confirmed.toInstant());
            })
        .optional();
  }
}
