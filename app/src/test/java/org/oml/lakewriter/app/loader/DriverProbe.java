package org.oml.lakewriter.app.loader;

import java.io.IOException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Function;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.jdbc.PgDriver;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseKeeper;

/**
 * Runs inside a {@link ChildFirstLoader}: opens a connection to {@code url} the way the job does
 * ({@code preflight}; {@code lease}, the committer's lease keeper on a TaskManager) or the way Debezium's fallback factory does ({@code driver-manager}, after
 * {@link PgDriver#ensureRegistered()}, as the CDC deserializer's static initialiser does), and
 * returns the failure's message. The URL points at a closed port, so a driver that was found
 * answers "Connection refused"; one that was not found says "No suitable driver".
 */
public final class DriverProbe implements Function<String, String> {
  @Override
  public String apply(String how) {
    String url = "jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2";
    try {
      if (how.equals("preflight")) {
        Preflight.connect(LakeWriterConfig.of(Map.of("postgres.url", url), k -> null)).close();
      } else if (how.equals("lease")) {
        LakeWriterConfig cfg =
            LakeWriterConfig.of(Map.of("postgres.url", url, "lake.root", "/tmp/no-lake"), k -> null);
        LeaseKeeper.start(cfg.leaseSettings(LeaseHolder.newForThisProcess()), "probe").close();
      } else if (how.equals("cdc")) {
        // What the CDC source's classes see: once the deserializer class is initialised in this
        // loader (it is part of the source), DriverManager serves this loader's driver.
        Class.forName(
            "org.oml.lakewriter.cdc.OutboxDeserializer", true, DriverProbe.class.getClassLoader());
        DriverManager.getConnection(url, "nobody", "").close();
      } else {
        PgDriver.ensureRegistered();
        DriverManager.getConnection(url, "nobody", "").close();
      }
      return "connected";
    } catch (SQLException | IOException | ClassNotFoundException | RuntimeException e) {
      return e.getMessage();
    }
  }
}
