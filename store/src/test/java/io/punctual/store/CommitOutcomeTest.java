package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.transaction.TransactionException;
import org.junit.jupiter.api.Test;

class CommitOutcomeTest {
  private static RuntimeException failing(String sqlState) {
    return new IllegalStateException("statement", new SQLException("x", sqlState));
  }

  @Test
  void aLostConnectionOrAShutdownDuringTheWriteLeavesItsOutcomeUnknown() {
    assertThat(CommitOutcome.mayHaveCommitted(failing("57P01"))).isTrue();
    assertThat(CommitOutcome.mayHaveCommitted(failing("08006"))).isTrue();
    assertThat(
            CommitOutcome.mayHaveCommitted(
                new TransactionException(
                    "Failed to commit transaction", new SQLException("x", "40001"))))
        .isTrue();
    assertThat(CommitOutcome.mayHaveCommitted(new UncheckedIOException(new EOFException())))
        .isTrue();
  }

  @Test
  void anErrorPostgresAnsweredOrNoConnectionAtAllLeavesNothingCommitted() {
    assertThat(CommitOutcome.mayHaveCommitted(failing("40P01"))).isFalse();
    assertThat(CommitOutcome.mayHaveCommitted(failing("57014"))).isFalse();
    assertThat(
            CommitOutcome.mayHaveCommitted(
                new ConnectionException(new SQLException("refused", "08001"))))
        .isFalse();
  }
}
