package org.oml.lakewriter.app.loader;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Function;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.jdbc.PgDriver;

/**
 * Runs inside a {@link ChildFirstLoader}: opens a connection to {@code url} the way the job does
 * ({@code preflight}) or the way Debezium's fallback factory does ({@code driver-manager}, after
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
      } else {
        PgDriver.ensureRegistered();
        DriverManager.getConnection(url, "nobody", "").close();
      }
      return "connected";
    } catch (SQLException | RuntimeException e) {
      return e.getMessage();
    }
  }
}
