package io.punctual.common.sql;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.UnableToCreateStatementException;

/**
 * Array arguments converted once per statement. Jdbi binds a Java array afresh at every place a
 * statement names it, and the PostgreSQL driver writes a UUID array as text, element by element; a
 * statement that names the same batch of ids three times paid that three times.
 */
public final class SqlArrays {
  private SqlArrays() {}

  /** {@code ids} as one {@code uuid[]}, bound as it is wherever the statement names it. */
  public static Argument uuids(Handle h, UUID[] ids) {
    Array array;
    try {
      array = h.getConnection().createArrayOf("uuid", ids);
    } catch (SQLException e) {
      throw new UnableToCreateStatementException("could not create a uuid[] argument", e);
    }
    return new Argument() {
      @Override
      public void apply(int position, PreparedStatement statement, StatementContext ctx)
          throws SQLException {
        statement.setArray(position, array);
      }

      @Override
      public String toString() {
        return "uuid[" + ids.length + "]";
      }
    };
  }
}
