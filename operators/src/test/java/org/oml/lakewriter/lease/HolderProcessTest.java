package org.oml.lakewriter.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a lease holder is provably dead: only a holder whose token names its process, on this host,
 * boot and PID namespace, whose pid is gone or now another process's. Real processes: a child
 * {@code sleep}, alive and then killed.
 */
class HolderProcessTest {
  private static final String HOST = "host-a";
  private HolderProcess self;

  @BeforeEach
  void thisProcess() {
    Optional<HolderProcess> current = HolderProcess.current();
    assumeTrue(current.isPresent(), "needs Linux's /proc");
    self = current.get();
  }

  @Test
  void aRunHoldersTokenNamesItsProcessAndAnyOtherTokenNamesNone() {
    LeaseHolder run = LeaseHolder.newRunningItsJobInThisProcess();
    assertThat(run.token()).startsWith(run.host() + "/" + run.pid() + "/");
    assertThat(HolderProcess.of(run.token())).contains(self);
    assertThat(self.startMillis())
        .isEqualTo(ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli());
    assertThat(HolderProcess.of(LeaseHolder.newForThisProcess().token())).isEmpty();
    assertThat(run.token()).doesNotContainAnyWhitespaces().doesNotContain("\"");
  }

  @Test
  void aHolderWhoseProcessWasKilledIsDeadAndOneWhoseProcessRunsIsNot() throws Exception {
    Process child = new ProcessBuilder("sleep", "60").start();
    try {
      LeaseRecord lease = heldBy(child.pid(), self.bootId(), self.pidNamespace(), started(child));
      assertThat(HolderProcess.deathOf(lease, HOST, Optional.of(self))).isEmpty();

      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(HolderProcess.deathOf(lease, HOST, Optional.of(self)))
          .hasValueSatisfying(
              why -> assertThat(why).contains("pid " + child.pid()).contains("has ended"));
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void aPidNowHeldByAProcessStartedAtAnotherTimeIsADeadHolders() {
    long pid = ProcessHandle.current().pid();
    long anHourBefore = self.startMillis() - Duration.ofHours(1).toMillis();
    LeaseRecord reused = heldBy(pid, self.bootId(), self.pidNamespace(), anHourBefore);
    assertThat(HolderProcess.deathOf(reused, HOST, Optional.of(self)))
        .hasValueSatisfying(why -> assertThat(why).contains("the pid now belongs"));

    LeaseRecord same = heldBy(pid, self.bootId(), self.pidNamespace(), self.startMillis());
    assertThat(HolderProcess.deathOf(same, HOST, Optional.of(self))).isEmpty();
  }

  @Test
  void nothingIsProvenForAnotherHostBootOrNamespaceOrATokenWithoutItsProcess() throws Exception {
    Process child = new ProcessBuilder("true").start();
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    long gone = child.pid();
    long start = self.startMillis();
    LeaseRecord dead = heldBy(gone, self.bootId(), self.pidNamespace(), start);
    assertThat(HolderProcess.deathOf(dead, HOST, Optional.of(self))).isPresent();

    assertThat(HolderProcess.deathOf(dead, "host-b", Optional.of(self))).isEmpty();
    String otherBoot = "00000000-0000-0000-0000-000000000000";
    assertThat(HolderProcess.deathOf(heldBy(gone, otherBoot, self.pidNamespace(), start), HOST,
            Optional.of(self)))
        .isEmpty();
    assertThat(HolderProcess.deathOf(heldBy(gone, self.bootId(), "1", start), HOST,
            Optional.of(self)))
        .isEmpty();
    assertThat(HolderProcess.deathOf(dead, HOST, Optional.empty())).isEmpty();
    LeaseRecord submitted = record(HOST + "/" + gone + "/abcd", gone);
    assertThat(HolderProcess.deathOf(submitted, HOST, Optional.of(self))).isEmpty();
    LeaseRecord noPid = record(dead.holder(), null);
    assertThat(HolderProcess.deathOf(noPid, HOST, Optional.of(self))).isEmpty();
  }

  @Test
  void withoutTheKernelsAnswersThisProcessNamesNothing(@TempDir Path proc) throws Exception {
    assertThat(HolderProcess.current(proc)).isEmpty();
    Files.createDirectories(proc.resolve("sys/kernel/random"));
    Files.writeString(proc.resolve("sys/kernel/random/boot_id"), self.bootId() + "\n");
    assertThat(HolderProcess.current(proc)).isEmpty(); // no self/ns/pid
    Files.createDirectories(proc.resolve("self/ns"));
    Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[4026531836]"));
    assertThat(HolderProcess.current(proc))
        .hasValueSatisfying(p -> assertThat(p.pidNamespace()).isEqualTo("4026531836"));
  }

  private static long started(Process p) {
    return p.toHandle().info().startInstant().orElseThrow().toEpochMilli();
  }

  private static LeaseRecord heldBy(long pid, String boot, String namespace, long startMillis) {
    String token =
        HOST + "/" + pid + "/abcd" + new HolderProcess(boot, namespace, startMillis).suffix();
    return record(token, pid);
  }

  private static LeaseRecord record(String token, Long pid) {
    Instant now = Instant.now();
    return new LeaseRecord(
        "file:///lake", 3, token, HOST, pid, "job", "w1", "slot", now, now,
        now.plusSeconds(30), Duration.ofSeconds(5), now);
  }
}
