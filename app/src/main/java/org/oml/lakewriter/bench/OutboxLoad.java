package org.oml.lakewriter.bench;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * Loads the outbox once, fast: CSV {@code COPY} of the {@link DrainMix} in transactions of {@code
 * chunk} rows through pgjdbc's {@link CopyManager}. The {@code BEFORE INSERT} row trigger assigns
 * {@code seq} and {@code tx_id} exactly as on the authority's write path.
 */
public final class OutboxLoad {
  public record Result(
      long rows, long journal, long materialize, long retract, long bodyBytes, double seconds) {}

  private OutboxLoad() {}

  /** Loads into {@code oml_outbox} of schema {@code public}. */
  public static Result load(
      Connection c, long events, int tenants, int bodyBytes, int chunk, long seed)
      throws Exception {
    return load(c, "public", events, tenants, bodyBytes, chunk, seed);
  }

  public static Result load(
      Connection c, String schema, long events, int tenants, int bodyBytes, int chunk, long seed)
      throws Exception {
    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    DrainMix mix = new DrainMix(tenants, bodyBytes, seed, "");
    long start = System.nanoTime();
    StringBuilder sb = new StringBuilder(chunk * 400);
    int inChunk = 0;
    for (long i = 0; i < events; i++) {
      DrainMix.csv(sb, mix.next());
      if (++inChunk == chunk || i == events - 1) {
        copy.copyIn(
            "COPY " + schema + ".oml_outbox (" + DrainMix.COLUMNS
                + ") FROM STDIN WITH (FORMAT csv)",
            new StringReader(sb.toString()));
        sb.setLength(0);
        inChunk = 0;
      }
    }
    c.setAutoCommit(auto);
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(
        events, mix.journal, mix.materialize, mix.retract, mix.bodyTotal, seconds);
  }

  public static long scalar(Connection c, String sql) throws SQLException {
    try (var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
