package org.oml.lakewriter.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Samples, every 100 ms while one mode runs: the JVM's heap occupancy, and the CPU time of the
 * walsender that serves the mode's slot ({@code pg_replication_slots.active_pid}, read from
 * /proc). A walsender's CPU time starts at zero with its connection, so its last reading is what
 * this mode cost it; a reconnect gives a new pid, and the pids are summed.
 */
final class Sampler implements AutoCloseable {
  private final Connection connection;
  private final PreparedStatement activePid;
  private final Thread thread;
  private final Map<Long, Double> walsenders = new HashMap<>();
  private volatile boolean running = true;
  final ThreadCpu threads = ThreadCpu.start();
  volatile long heapPeak;
  volatile long lastPid = -1;

  Sampler(EmbeddedPostgresServer pg, String slot) throws Exception {
    connection = pg.connect();
    activePid =
        connection.prepareStatement(
            "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?");
    activePid.setString(1, slot);
    thread =
        new Thread(
            () -> {
              for (long tick = 0; running; tick++) {
                sampleNow();
                if (tick % 5 == 0) {
                  threads.sample();
                }
                try {
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "bench-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  synchronized void sampleNow() {
    heapPeak = Math.max(heapPeak, Probe.heapUsed());
    try (ResultSet rs = activePid.executeQuery()) {
      if (rs.next()) {
        long pid = rs.getLong(1);
        if (!rs.wasNull() && pid > 0) {
          lastPid = pid;
        }
      }
    } catch (Exception e) {
      // the connection is closing
    }
    if (lastPid > 0) {
      double cpu = Probe.procCpuSeconds(lastPid, false);
      if (!Double.isNaN(cpu)) {
        walsenders.merge(lastPid, cpu, Math::max);
      }
    }
  }

  synchronized double walsenderCpu() {
    return walsenders.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  @Override
  public void close() throws Exception {
    running = false;
    thread.interrupt();
    thread.join(1000);
    synchronized (this) {
      connection.close();
    }
  }
}
