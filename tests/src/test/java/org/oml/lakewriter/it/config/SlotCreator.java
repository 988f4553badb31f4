package org.oml.lakewriter.it.config;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import org.postgresql.PGConnection;

/**
 * {@code SlotCreator jdbcUrl slot}: creates a logical slot over a replication connection, as the
 * CDC source does on its first start, and prints the walsender's pid first. Run as a child process
 * and SIGKILLed while the creation waits for an open transaction, it leaves what a killed writer
 * leaves: a walsender inside CREATE_REPLICATION_SLOT whose client is gone.
 */
public final class SlotCreator {
  private SlotCreator() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("password", "");
    p.setProperty("replication", "database");
    p.setProperty("assumeMinServerVersion", "10");
    p.setProperty("preferQueryMode", "simple");
    try (Connection c = DriverManager.getConnection(args[0], p)) {
      System.out.println("creating slot " + args[1]);
      System.out.flush();
      c.unwrap(PGConnection.class)
          .getReplicationAPI()
          .createReplicationSlot()
          .logical()
          .withSlotName(args[1])
          .withOutputPlugin("pgoutput")
          .make();
      System.out.println("created slot " + args[1]);
    }
  }
}
