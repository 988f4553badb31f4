package org.oml.lakewriter.cdc;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.oml.lakewriter.jdbc.JdbcSettings;

/** Where and how the CDC source reads the outbox. Immutable; built by the job's options. */
public record OutboxSourceOptions(
    String hostname,
    int port,
    String database,
    String schema,
    String username,
    String password,
    String slotName,
    String publication,
    String writerId,
    Duration tickPeriod,
    int maxBodyBytes,
    JdbcSettings jdbc,
    CdcTuning cdc)
    implements Serializable {

  /** With {@link CdcTuning#DEFAULT}. */
  public OutboxSourceOptions(
      String hostname,
      int port,
      String database,
      String schema,
      String username,
      String password,
      String slotName,
      String publication,
      String writerId,
      Duration tickPeriod,
      int maxBodyBytes,
      JdbcSettings jdbc) {
    this(hostname, port, database, schema, username, password, slotName, publication, writerId,
        tickPeriod, maxBodyBytes, jdbc, CdcTuning.DEFAULT);
  }

  /** With {@link JdbcSettings#DEFAULT}: no URL parameters, default timeouts. */
  public OutboxSourceOptions(
      String hostname,
      int port,
      String database,
      String schema,
      String username,
      String password,
      String slotName,
      String publication,
      String writerId,
      Duration tickPeriod,
      int maxBodyBytes) {
    this(hostname, port, database, schema, username, password, slotName, publication, writerId,
        tickPeriod, maxBodyBytes, JdbcSettings.DEFAULT);
  }

  public OutboxSourceOptions {
    Objects.requireNonNull(jdbc, "jdbc");
    Objects.requireNonNull(cdc, "cdc");
    Objects.requireNonNull(hostname, "hostname");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(slotName, "slotName");
    Objects.requireNonNull(publication, "publication");
    Objects.requireNonNull(writerId, "writerId");
    Objects.requireNonNull(tickPeriod, "tickPeriod");
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://" + hostname + ":" + port + "/" + database;
  }

  /**
   * A plain (non-replication) side connection to the outbox database, autocommit on, with the
   * URL's parameters and the connect and socket timeouts of {@link #jdbc()}.
   */
  public java.sql.Connection connect() throws java.sql.SQLException {
    return jdbc.connect(jdbcUrl(), username, password);
  }

  @Override
  public String toString() {
    // Never print the password.
    return "OutboxSourceOptions{"
        + username + "@" + hostname + ":" + port + "/" + database + ", slot=" + slotName
        + ", publication=" + publication + ", writer=" + writerId + ", tick=" + tickPeriod + ", "
        + jdbc + ", " + cdc + "}";
  }
}
