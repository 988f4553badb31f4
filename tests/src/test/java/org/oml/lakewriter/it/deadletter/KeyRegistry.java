package org.oml.lakewriter.it.deadletter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A data-key registry in the test's PostgreSQL: a table of known key ids and the function the
 * lake writer's {@code keys.lookup-query} calls. The function can be replaced by a slow one (it
 * sleeps past the lookup's timeout), which is how the registry becomes briefly unavailable: DDL in
 * a short transaction, so no open transaction holds the outbox's horizon meanwhile.
 */
final class KeyRegistry {
  static final String LOOKUP = "SELECT * FROM oml_known_data_keys(?)";

  private KeyRegistry() {}

  /** Creates the table if needed, and (re)creates the lookup function, slow or not. */
  static void create(Connection c, boolean slow) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS oml_data_key (key_id text PRIMARY KEY)");
      st.execute(
          "CREATE OR REPLACE FUNCTION oml_known_data_keys(ids text[]) RETURNS SETOF text"
              + " LANGUAGE plpgsql AS $$ BEGIN "
              + (slow ? "PERFORM pg_sleep(5); " : "")
              + "RETURN QUERY SELECT key_id FROM oml_data_key WHERE key_id = ANY(ids); END $$");
    }
  }

  static void register(Connection c, String keyId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO oml_data_key VALUES (?) ON CONFLICT DO NOTHING")) {
      ps.setString(1, keyId);
      ps.executeUpdate();
    }
  }

  /** Registers the data keys of these outbox rows (the promotions among them); returns them. */
  static List<Long> registerKeysOf(Connection c, List<Long> seqs) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_data_key SELECT data_key_id FROM oml_outbox"
                + " WHERE seq = ANY(?) AND data_key_id IS NOT NULL ON CONFLICT DO NOTHING")) {
      ps.setArray(1, c.createArrayOf("bigint", seqs.toArray()));
      ps.executeUpdate();
    }
    return seqs;
  }
}
