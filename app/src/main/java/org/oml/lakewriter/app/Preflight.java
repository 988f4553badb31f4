package org.oml.lakewriter.app;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.contract.ContractException;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.keys.DataKeyCheck;

/**
 * What must hold before the job starts, checked in the order an operator would fix it: the
 * database is reachable and accepts the credentials, it meets the outbox contract, the slot is
 * free, and the lake root is writable. Each failure is a {@link ConfigException} (or a {@link
 * org.oml.lakewriter.contract.ContractException}) that names the option and what to do.
 */
public final class Preflight {
  private Preflight() {}

  /**
   * @param restoring the job resumes from a checkpoint, so its slot must still exist
   * @param acceptLostSlot the operator has acknowledged a lost slot (rows are refetched by seq)
   */
  public static void check(LakeWriterConfig cfg, boolean restoring, boolean acceptLostSlot) {
    String publication = cfg.get(LakeWriterOptions.PUBLICATION);
    try (Connection c = connect(cfg)) {
      try {
        OutboxContract.verify(c, publication);
      } catch (ContractException e) {
        // Say which database and which publication option the problems are about.
        throw new ContractException(
            LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl() + ", "
                + LakeWriterOptions.PUBLICATION.key() + " = " + publication + ": "
                + e.getMessage(),
            e);
      }
      checkSlot(c, cfg, restoring, acceptLostSlot);
    } catch (SQLException e) {
      throw new ConfigException("PostgreSQL check failed: " + e.getMessage(), e);
    }
    checkKeyLookup(cfg);
    checkLakeRoot(cfg);
  }

  /**
   * Runs the key lookup once with no ids: a missing registry table, a typo or a query without its
   * one parameter is a configuration error now, not a dead letter per promotion later.
   */
  private static void checkKeyLookup(LakeWriterConfig cfg) {
    try (DataKeyCheck check = cfg.dataKeyCheck()) {
      if (check != null) {
        check.known(Set.of());
      }
    } catch (SQLException e) {
      throw new ConfigException(
          "option " + LakeWriterOptions.KEYS_LOOKUP_QUERY.key() + " = '"
              + cfg.get(LakeWriterOptions.KEYS_LOOKUP_QUERY) + "' fails: " + e.getMessage()
              + " (SQLState " + e.getSQLState() + "); it must take one text[] parameter and"
              + " return the known key ids", e);
    }
  }

  /** Opens a connection, turning the usual failures into messages that name the option. */
  public static Connection connect(LakeWriterConfig cfg) {
    try {
      return DriverManager.getConnection(cfg.jdbcUrl(), cfg.connectionProperties());
    } catch (SQLException e) {
      String state = e.getSQLState() == null ? "" : e.getSQLState();
      // Without a password the driver itself gives up (08004) when the server asks for one.
      boolean noPassword = cfg.password().isEmpty() && state.equals("08004");
      if (state.equals("28P01") || state.equals("28000") || noPassword) {
        throw new ConfigException(
            "PostgreSQL refused the credentials of "
                + LakeWriterOptions.POSTGRES_USER.key() + " '" + cfg.user() + "' ("
                + (noPassword ? "no password is set; " : "")
                + e.getMessage() + "): set the password in the variable named by "
                + LakeWriterOptions.POSTGRES_PASSWORD_ENV.key() + " ("
                + cfg.get(LakeWriterOptions.POSTGRES_PASSWORD_ENV) + ") or in "
                + LakeWriterOptions.POSTGRES_PASSWORD_FILE.key(), e);
      }
      if (state.equals("3D000")) {
        throw new ConfigException(
            "the database in " + LakeWriterOptions.POSTGRES_URL.key() + " does not exist: "
                + e.getMessage(), e);
      }
      throw new ConfigException(
          "cannot reach PostgreSQL at " + LakeWriterOptions.POSTGRES_URL.key() + " = "
              + cfg.jdbcUrl() + ": " + e.getMessage(), e);
    }
  }

  private static void checkSlot(
      Connection c, LakeWriterConfig cfg, boolean restoring, boolean acceptLostSlot)
      throws SQLException {
    String slot = cfg.get(LakeWriterOptions.SLOT);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT active, active_pid, database FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          if (restoring && !acceptLostSlot) {
            throw new ConfigException(
                "SLOT_LOST: replication slot '" + slot + "' (" + LakeWriterOptions.SLOT.key()
                    + ") is gone, but the job resumes from a checkpoint that read from it. Rows"
                    + " committed meanwhile are not in the WAL stream; the completeness check"
                    + " refetches them by seq from the outbox. Restart with --accept-lost-slot"
                    + " to proceed.");
          }
          return;
        }
        if (rs.getBoolean("active")) {
          throw new ConfigException(
              "replication slot '" + slot + "' (" + LakeWriterOptions.SLOT.key()
                  + ") is held by another process (pid " + rs.getInt("active_pid")
                  + "): is another lake writer running? There must be exactly one.");
        }
      }
    }
  }

  private static void checkLakeRoot(LakeWriterConfig cfg) {
    URI root = URI.create(cfg.lakeRoot());
    Configuration hadoop = new Configuration();
    for (Map.Entry<String, String> e : cfg.hadoopProperties().entrySet()) {
      hadoop.set(e.getKey(), e.getValue());
    }
    Path probe = new Path(new Path(root), "_lakewriter_probe_" + UUID.randomUUID());
    try {
      FileSystem fs = FileSystem.get(root, hadoop);
      fs.mkdirs(new Path(root));
      fs.create(probe, false).close();
      fs.delete(probe, false);
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(
          "the lake root " + LakeWriterOptions.LAKE_ROOT.key() + " = " + cfg.lakeRoot()
              + " is not writable: " + e, e);
    }
  }
}
