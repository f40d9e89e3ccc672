package io.punctual.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jdbi.v3.core.ConnectionException;
import org.junit.jupiter.api.Test;

class StoreFailuresTest {

  @Test
  void connectionProblemsAnywhereInTheChainMeanUnavailable() {
    assertThat(StoreFailures.isUnavailable(new SQLTransientConnectionException("pool timeout")))
        .isTrue();
    assertThat(
            StoreFailures.isUnavailable(
                new ConnectionException(new SQLException("refused", "08001"))))
        .isTrue();
    assertThat(
            StoreFailures.isUnavailable(
                new RuntimeException(new SQLException("terminating", "57P01"))))
        .isTrue();
    assertThat(StoreFailures.isUnavailable(new RuntimeException(new ConnectException("no"))))
        .isTrue();
  }

  @Test
  void otherErrorsAreBugs() {
    assertThat(StoreFailures.isUnavailable(new SQLException("syntax", "42601"))).isFalse();
    assertThat(StoreFailures.isUnavailable(new IllegalStateException("x"))).isFalse();
  }
}
