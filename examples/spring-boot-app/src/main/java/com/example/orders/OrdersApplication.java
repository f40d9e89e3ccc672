package com.example.orders;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** An orders service: each order placed is confirmed by a Punctual job. */
@SpringBootApplication
public class OrdersApplication {

  /** Punctual reads time from the context's Clock bean; tests may give another one. */
  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }
}
