package io.punctual.store;

import java.sql.SQLException;
import java.sql.Types;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.argument.ObjectArgumentFactory;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.postgresql.PGConnection;
import org.postgresql.jdbc.PreferQueryMode;
import org.postgresql.util.ByteConverter;
import org.postgresql.util.PGBinaryObject;
import org.postgresql.util.PGobject;

/**
 * Binds {@code UUID[]}, {@code Long[]}, {@code Integer[]} and {@code String[]} parameters in
 * PostgreSQL's binary array format. Every batch statement of the store takes one array per column
 * (a claim's ids, a batch insert's columns); Jdbi's own array binding goes through {@code
 * Connection.createArrayOf}, for which the driver builds a quoted text literal per bind that the
 * server then parses back element by element.
 *
 * <p>Handed to the driver as Java arrays ({@code setObject}), {@code bigint[]}, {@code integer[]}
 * and {@code varchar[]} go binary (the driver's own encoders; the same array types as before, so no
 * statement changes). The driver has no binary encoder for {@code uuid[]}: {@link UuidArray} writes
 * it (16 bytes per id), sent binary on connections with {@code uuid[]} in {@code
 * binaryTransferEnable} ({@link Database} sets it) and as a text literal on any other. A connection
 * in the simple query mode ({@code preferQueryMode=simple}, say behind a pooler) gets text literals
 * for every array, as before.
 */
final class BinaryArrays {
  private BinaryArrays() {}

  /** PostgreSQL's type oids for uuid and uuid[] (pg_type). */
  static final int UUID_OID = 2950;

  static final int UUID_ARRAY_OID = 2951;

  /** Registers the four array types on {@code jdbi} (ahead of Jdbi's own array binding). */
  static void register(Jdbi jdbi) {
    jdbi.registerArgument(
        new AbstractArgumentFactory<UUID[]>(Types.ARRAY) {
          @Override
          protected Argument build(UUID[] ids, ConfigRegistry config) {
            return (position, statement, ctx) -> {
              // The simple query protocol inlines every parameter as text: binary bytes would
              // end up in the SQL. There the driver's own text literal goes instead.
              boolean simple =
                  statement.getConnection().unwrap(PGConnection.class).getPreferQueryMode()
                      == PreferQueryMode.SIMPLE;
              statement.setObject(position, simple ? ids : new UuidArray(ids));
            };
          }
        });
    // setObject(.., Types.ARRAY): the driver's binary encoders; null binds as setNull(ARRAY).
    jdbi.registerArgument(ObjectArgumentFactory.create(Long[].class, Types.ARRAY));
    jdbi.registerArgument(ObjectArgumentFactory.create(Integer[].class, Types.ARRAY));
    jdbi.registerArgument(ObjectArgumentFactory.create(String[].class, Types.ARRAY));
  }

  /**
   * A one-dimensional {@code uuid[]} (nulls allowed) in the binary format of PostgreSQL's {@code
   * array_send}: dimensions, a has-nulls flag, the element type, the length and lower bound, then
   * each element as a 4-byte length (-1 for null) and its 16 bytes.
   */
  static final class UuidArray extends PGobject implements PGBinaryObject {
    private static final long serialVersionUID = 1L;
    private static final int HEADER_BYTES = 20;
    private static final int ELEMENT_BYTES = 4 + 16;
    private static final int NULL_BYTES = 4;

    private final UUID[] ids;

    UuidArray(UUID[] ids) {
      this.ids = ids.clone();
      this.type = "uuid[]";
    }

    @Override
    public int lengthInBytes() {
      int bytes = HEADER_BYTES;
      for (UUID id : ids) {
        bytes += id == null ? NULL_BYTES : ELEMENT_BYTES;
      }
      return bytes;
    }

    @Override
    public void toBytes(byte[] bytes, int offset) {
      boolean nulls = false;
      for (UUID id : ids) {
        nulls |= id == null;
      }
      ByteConverter.int4(bytes, offset, 1); // dimensions
      ByteConverter.int4(bytes, offset + 4, nulls ? 1 : 0);
      ByteConverter.int4(bytes, offset + 8, UUID_OID);
      ByteConverter.int4(bytes, offset + 12, ids.length);
      ByteConverter.int4(bytes, offset + 16, 1); // lower bound
      int at = offset + HEADER_BYTES;
      for (UUID id : ids) {
        if (id == null) {
          ByteConverter.int4(bytes, at, -1);
          at += NULL_BYTES;
        } else {
          ByteConverter.int4(bytes, at, 16);
          ByteConverter.int8(bytes, at + 4, id.getMostSignificantBits());
          ByteConverter.int8(bytes, at + 12, id.getLeastSignificantBits());
          at += ELEMENT_BYTES;
        }
      }
    }

    /** The text form, for a connection that does not send uuid[] binary. */
    @Override
    public String getValue() {
      StringBuilder text = new StringBuilder(2 + ids.length * 37).append('{');
      for (int i = 0; i < ids.length; i++) {
        text.append(i == 0 ? "" : ",").append(ids[i] == null ? "NULL" : ids[i].toString());
      }
      return text.append('}').toString();
    }

    @Override
    public void setByteValue(byte[] value, int offset) throws SQLException {
      throw new SQLException("a uuid[] parameter is only ever sent, never read back");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof UuidArray other && java.util.Arrays.equals(ids, other.ids);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(ids);
    }
  }
}
