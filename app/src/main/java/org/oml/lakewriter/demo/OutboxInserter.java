package org.oml.lakewriter.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;

/**
 * The demo's SQL against the authority's database: outbox rows, the data keys of promotions, the
 * key store's table, and how far the outbox sequence has gone.
 *
 * <p>Invariant: a promotion's wrapped data key is inserted on the same connection, and so in the
 * same transaction, as its outbox row; a rolled-back promotion takes its key with it, and the key
 * store never holds a key that no committed row names. An {@code erase} row deletes the erased
 * version's wrapped key in its own transaction: once the erase is committed, the key is gone, and
 * no copy of the ciphertext anywhere can be opened again. Statements are prepared once per
 * connection, so that the driver switches to server-side statements after a few executions.
 */
final class OutboxInserter implements AutoCloseable {
  private static final String INSERT_OUTBOX =
      "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
          + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
          + " plaintext_digest, ciphertext_digest, body, data_key_id, envelope)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq";
  private static final String INSERT_KEY =
      "INSERT INTO "
          + DemoTraffic.DATA_KEY_TABLE
          + " (data_key_id, artifact_id, wrapped) VALUES (?, ?, ?)";
  private static final String DELETE_KEY =
      "DELETE FROM " + DemoTraffic.DATA_KEY_TABLE + " WHERE data_key_id = ? AND artifact_id = ?";
  private static final String KEY_TABLE_LOCK = "hashtext('" + DemoTraffic.DATA_KEY_TABLE + "')";

  private final PreparedStatement outbox;
  private final PreparedStatement keys;
  private final PreparedStatement deleteKey;

  OutboxInserter(Connection connection) throws SQLException {
    this.outbox = connection.prepareStatement(INSERT_OUTBOX);
    this.keys = connection.prepareStatement(INSERT_KEY);
    this.deleteKey = connection.prepareStatement(DELETE_KEY);
  }

  /** Creates the demo's data-key table if it is missing. */
  static void createDataKeyTable(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + DemoTraffic.DATA_KEY_TABLE
              + " (data_key_id text PRIMARY KEY, artifact_id text NOT NULL, wrapped bytea NOT"
              + " NULL)");
    }
  }

  /**
   * Creates the data-key table under an advisory lock, on an autocommit connection: concurrent
   * {@code CREATE TABLE IF NOT EXISTS} can fail on the catalog's unique index.
   */
  static void createDataKeyTableSerialized(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("SELECT pg_advisory_lock(" + KEY_TABLE_LOCK + ")");
      try {
        createDataKeyTable(connection);
      } finally {
        st.execute("SELECT pg_advisory_unlock(" + KEY_TABLE_LOCK + ")");
      }
    }
  }

  /** The outbox sequence's last value, or 0 when no seq has been taken from it yet. */
  static long sequenceUsed(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM oml_outbox_seq")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Inserts the row (and its wrapped key, in the same transaction) and returns its seq. */
  long insert(OutboxRow row) throws SQLException {
    if (row.wrappedKey() != null) {
      insertKey(row);
    }
    if (row.erasedDataKeyId() != null) {
      deleteKey.setString(1, row.erasedDataKeyId());
      deleteKey.setString(2, row.artifactId());
      deleteKey.executeUpdate();
    }
    bindOutbox(row);
    try (ResultSet rs = outbox.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void insertKey(OutboxRow row) throws SQLException {
    keys.setString(1, row.dataKeyId());
    keys.setString(2, row.artifactId());
    keys.setBytes(3, row.wrappedKey());
    keys.executeUpdate();
  }

  private void bindOutbox(OutboxRow row) throws SQLException {
    PreparedStatement ps = outbox;
    ps.setString(1, row.tenant());
    ps.setString(2, row.kind().wireName());
    ps.setString(3, row.artifactId());
    if (row.version() == null) {
      ps.setNull(4, Types.BIGINT);
    } else {
      ps.setLong(4, row.version());
    }
    ps.setString(5, row.workarea());
    ps.setString(6, row.path());
    ps.setString(7, row.writer());
    ps.setString(8, row.principal());
    ps.setString(9, row.ratifiedBy());
    ps.setString(10, row.provenance());
    ps.setString(11, row.plaintextDigest());
    ps.setString(12, row.ciphertextDigest());
    if (row.body() == null) {
      ps.setNull(13, Types.BINARY);
    } else {
      ps.setBytes(13, row.body());
    }
    ps.setString(14, row.dataKeyId());
    ps.setString(15, row.envelope());
  }

  @Override
  public void close() throws SQLException {
    try {
      outbox.close();
    } finally {
      try {
        keys.close();
      } finally {
        deleteKey.close();
      }
    }
  }
}
