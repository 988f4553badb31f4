package org.oml.lakewriter.cdc;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

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
    int maxBodyBytes)
    implements Serializable {
  public OutboxSourceOptions {
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

  /** A plain (non-replication) connection to the outbox database, autocommit on. */
  public java.sql.Connection connect() throws java.sql.SQLException {
    return java.sql.DriverManager.getConnection(
        jdbcUrl(), username, password == null ? "" : password);
  }

  @Override
  public String toString() {
    // Never print the password.
    return "OutboxSourceOptions{"
        + username + "@" + hostname + ":" + port + "/" + database + ", slot=" + slotName
        + ", publication=" + publication + ", writer=" + writerId + ", tick=" + tickPeriod + "}";
  }
}
