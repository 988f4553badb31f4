package org.oml.lakewriter.lease;

import java.io.Serializable;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Who asks for the lease: one token per deployment start ({@code host/pid/nonce}). The token is
 * made by the process that starts the job ({@code lakewriter run}, or {@code flink run}'s main)
 * and travels inside the job graph, so the job's committer, wherever it runs and however often it
 * fails over, is the same holder and re-acquires without waiting; a new process is a new holder
 * and must wait for the old lease to expire, unless the old holder's process is provably dead
 * ({@link HolderProcess}).
 */
public record LeaseHolder(String token, String host, long pid) implements Serializable {
  private static final SecureRandom RANDOM = new SecureRandom();

  public LeaseHolder {
    Objects.requireNonNull(token, "token");
  }

  /**
   * A new holder for a deployment started by this process and running in it ({@code lakewriter
   * run}): its token also names this process ({@link HolderProcess}), so that once the process is
   * gone a restart on the same machine can prove the holder dead and take the lease at once.
   */
  public static LeaseHolder newRunningItsJobInThisProcess() {
    LeaseHolder holder = newForThisProcess();
    return HolderProcess.current()
        .map(p -> new LeaseHolder(holder.token() + p.suffix(), holder.host(), holder.pid()))
        .orElse(holder);
  }

  /** A new holder for a deployment started by this process. */
  public static LeaseHolder newForThisProcess() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown-host";
    }
    long pid = ProcessHandle.current().pid();
    byte[] nonce = new byte[4];
    RANDOM.nextBytes(nonce);
    return new LeaseHolder(host + "/" + pid + "/" + HexFormat.of().formatHex(nonce), host, pid);
  }
}
