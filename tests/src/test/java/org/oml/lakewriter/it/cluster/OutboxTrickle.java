package org.oml.lakewriter.it.cluster;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;

/** Writes outbox rows (journal and materialize, three tenants, four per transaction) until stopped. */
final class OutboxTrickle implements AutoCloseable {
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final Thread thread;
  private volatile Exception failure;

  private OutboxTrickle(TestDatabase db, String prefix) {
    thread = new Thread(() -> write(db, prefix), "outbox-trickle-" + prefix);
    thread.start();
  }

  static OutboxTrickle start(TestDatabase db, String prefix) {
    return new OutboxTrickle(db, prefix);
  }

  private void write(TestDatabase db, String prefix) {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; writing.get(); i++) {
        String tenant = i % 3 == 0 ? "acme" : i % 3 == 1 ? "globex" : "initech";
        if (i % 5 == 0) {
          byte[] body = ("body-" + prefix + i).getBytes(StandardCharsets.UTF_8);
          OutboxWriter.materialize(c, tenant, prefix + "-" + i, 1, body);
        } else {
          OutboxWriter.journal(c, tenant, prefix + "-" + i);
        }
        if (i % 4 == 3) {
          c.commit();
          Thread.sleep(40);
        }
      }
      c.commit();
    } catch (Exception e) {
      failure = e;
    }
  }

  /** Stops writing, after the transaction in hand commits. */
  @Override
  public void close() throws Exception {
    writing.set(false);
    thread.join();
    if (failure != null) {
      throw failure;
    }
  }
}
