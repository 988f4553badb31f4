package org.oml.lakewriter.lease;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The process that runs a holder's job, named so that another process can prove it dead: the
 * kernel it ran under (Linux's boot id), its PID namespace, its pid and its start time. Only a
 * holder whose job runs inside the process that took the lease ({@code lakewriter run}, with its
 * own Flink mini cluster) carries one, as a suffix of its token; a job submitted to a cluster runs
 * elsewhere, and the death of the process that submitted it proves nothing.
 *
 * <p>A process of the same host, boot and PID namespace sees the holder's pid in its own process
 * table. If that pid is gone, or belongs to a process started at another time (the pid was reused),
 * the holder's process has ended, and with it its job and everything that could commit under its
 * lease: the lease can pass at once instead of at its expiry (docs/leader-lease.md, "A provably
 * dead holder"). Anything else (another host or container, another boot, a process that is still
 * there, a platform without {@code /proc}) proves nothing, and the lease is waited for as before.
 */
record HolderProcess(String bootId, String pidNamespace, long startMillis) {
  static final String MARK = "/in-process:";
  private static final Pattern SUFFIX =
      Pattern.compile(Pattern.quote(MARK) + "([0-9a-f-]{36}):([0-9]+):([0-9]+)$");
  private static final Pattern NAMESPACE = Pattern.compile("pid:\\[([0-9]+)\\]");
  /** Start times read twice may differ by the clock tick Linux counts them in. */
  private static final Duration SAME_START = Duration.ofSeconds(1);

  /** This process, or empty where the kernel does not tell (no {@code /proc}). */
  static Optional<HolderProcess> current() {
    return current(Path.of("/proc"));
  }

  static Optional<HolderProcess> current(Path proc) {
    try {
      String boot = Files.readString(proc.resolve("sys/kernel/random/boot_id")).trim();
      Matcher ns =
          NAMESPACE.matcher(Files.readSymbolicLink(proc.resolve("self/ns/pid")).toString());
      Optional<Instant> start = ProcessHandle.current().info().startInstant();
      if (!boot.matches("[0-9a-f-]{36}") || !ns.matches() || start.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new HolderProcess(boot, ns.group(1), start.get().toEpochMilli()));
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** The suffix a holder's token carries. */
  String suffix() {
    return MARK + bootId + ":" + pidNamespace + ":" + startMillis;
  }

  /** The process a holder token names, if it names one. */
  static Optional<HolderProcess> of(String token) {
    Matcher m = SUFFIX.matcher(token);
    return m.find()
        ? Optional.of(new HolderProcess(m.group(1), m.group(2), Long.parseLong(m.group(3))))
        : Optional.empty();
  }

  /**
   * Why the holder of {@code lease} is certainly dead, seen from this process ({@code self}, on
   * host {@code host}); empty if that cannot be proven.
   */
  static Optional<String> deathOf(LeaseRecord lease, String host, Optional<HolderProcess> self) {
    Optional<HolderProcess> theirs = of(lease.holder());
    if (theirs.isEmpty()
        || self.isEmpty()
        || lease.holderPid() == null
        || !host.equals(lease.holderHost())
        || !theirs.get().bootId().equals(self.get().bootId())
        || !theirs.get().pidNamespace().equals(self.get().pidNamespace())) {
      return Optional.empty();
    }
    long pid = lease.holderPid();
    Optional<ProcessHandle> process = ProcessHandle.of(pid);
    String where = "pid " + pid + " on this host, boot and PID namespace";
    if (process.isEmpty()) {
      return Optional.of("process (" + where + ") has ended");
    }
    Optional<Instant> started = process.get().info().startInstant();
    if (started.isPresent()
        && Duration.between(Instant.ofEpochMilli(theirs.get().startMillis()), started.get())
                .abs()
                .compareTo(SAME_START)
            > 0) {
      return Optional.of(
          "process ("
              + where
              + ", started "
              + Instant.ofEpochMilli(theirs.get().startMillis())
              + ") has ended; the pid now belongs to a process started "
              + started.get());
    }
    return Optional.empty();
  }
}
