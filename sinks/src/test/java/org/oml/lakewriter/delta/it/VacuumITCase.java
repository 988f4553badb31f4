package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.event.EventKind.DEMOTE;
import static org.oml.lakewriter.event.EventKind.ERASE;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.kernel.KernelTableReader;
import org.oml.lakewriter.delta.log.TableHistory;
import org.oml.lakewriter.delta.log.Vacuum;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * VACUUM on real Delta tables written by the writer and read back by Kernel: it deletes the file
 * versions an erase replaced once they are older than the retention, keeps every file a version
 * inside the retention reads (each such version is read again with Kernel's time travel), never
 * touches a staged file that is not committed yet, and leaves no byte of the erased body on disk.
 */
class VacuumITCase {
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);
  private static final Duration RETENTION = Duration.ofDays(7);

  @TempDir Path dir;

  @Test
  void deletesOnlyFilesRemovedBeforeTheHorizonAndEveryVersionInsideItStillReads()
      throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(
        lake,
        List.of(
            new Batch(0, 10, List.of(promote(1, "k1"), promote(2, "k2"))),
            new Batch(10, 20, List.of(promote(11, "k3"))),
            new Batch(20, 30, List.of(retract(21, ERASE, "k1"))),
            new Batch(30, 40, List.of(retract(31, DEMOTE, "k3")))));
    LakeReader reader = LakeReader.open(lake);
    List<TableHistory.Version> history = reader.history(SILVER);
    assertThat(history)
        .extracting(TableHistory.Version::operation)
        .containsExactly(
            TableHistory.Operation.METADATA, TableHistory.Operation.DATA,
            TableHistory.Operation.DATA, TableHistory.Operation.REWRITE,
            TableHistory.Operation.REWRITE);
    assertThat(history.get(3)).satisfies(v -> {
      assertThat(v.seqFrom()).isEqualTo(21);
      assertThat(v.seqTo()).isEqualTo(30);
      assertThat(v.txnVersion()).isEqualTo(30);
    });
    assertThat(containsBytes(dir, "body-k1")).as("k1's body before VACUUM").isNotEmpty();
    // No statistics of the body column: the log (commits, checkpoints, .crc) never holds a body.
    assertThat(containsBytes(dir.resolve(SILVER.relativePath()).resolve("_delta_log"), "body-k"))
        .isEmpty();

    // Now + 8 days; the last commit (the demote of k3, version 4) is made to be 5 days younger
    // than the horizon, so versions 3 (the erase) and 4 are the ones inside the retention.
    Instant now = Instant.now().plus(Duration.ofDays(8));
    touch(SILVER, 4, Instant.now().plus(Duration.ofDays(6)));
    Vacuum vacuum = new Vacuum(new KernelTableReader(lake), Clock.fixed(now, ZoneOffset.UTC));

    Vacuum.Result dry = vacuum.run(SILVER, RETENTION, true);
    assertThat(dry.deleted()).hasSize(1);
    assertThat(containsBytes(dir, "body-k1")).isNotEmpty();

    Vacuum.Result result = vacuum.run(SILVER, RETENTION, false);
    assertThat(result.horizonVersion()).isEqualTo(3);
    assertThat(result.removedBeforeHorizon()).isEqualTo(2);
    assertThat(result.deleted()).as("the file of k1 and k2 the erase replaced").hasSize(1);
    assertThat(result.keptForRetention()).as("k3's old file, live in version 3").isEqualTo(1);
    // The erased body is gone from every file under the lake: data, log, checkpoints, .crc.
    assertThat(containsBytes(dir, "body-k1")).isEmpty();
    assertThat(containsBytes(dir, "body-k2")).as("k2's row lives on").isNotEmpty();
    // Every version inside the retention still reads, with the same rows as before.
    for (long version = 3; version <= 4; version++) {
      assertThat(reader.contentsAt(SILVER, version).orElseThrow().rows()).hasSize(3);
    }
    assertThat(reader.contentsAt(SILVER, 4).orElseThrow().rows())
        .extracting(r -> r.get("state"))
        .containsExactly("active", "erased", "demoted");
    // A version before the horizon may break: its file is gone, as Delta's VACUUM documents.
    assertThatThrownBy(() -> reader.contentsAt(SILVER, 1)).isInstanceOf(Exception.class);
    // A second run finds nothing more to delete.
    assertThat(vacuum.run(SILVER, RETENTION, false).deleted()).isEmpty();
  }

  @Test
  void aStagedFileNotYetCommittedIsNeverDeletedWhateverItsAge() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(
        lake,
        List.of(
            new Batch(0, 10, List.of(promote(1, "k1"))),
            new Batch(10, 20, List.of(retract(11, ERASE, "k1")))));
    // A writer stages the next batch (its file is under the table directory) and does not commit.
    List<DeltaCommittable> pending =
        SinkDriver.write(lake, List.of(new Batch(20, 30, List.of(promote(21, "k2")))));
    List<Path> before = dataFiles(SILVER);
    for (Path file : before) {
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofDays(30))));
    }
    Instant now = Instant.now().plus(Duration.ofDays(8));
    Vacuum.Result result =
        new Vacuum(new KernelTableReader(lake), Clock.fixed(now, ZoneOffset.UTC))
            .run(SILVER, RETENTION, false);
    assertThat(result.deleted()).hasSize(1);
    assertThat(dataFiles(SILVER)).hasSize(before.size() - 1);
    // The staged batch still commits and reads back.
    SinkDriver.commit(lake, pending);
    assertThat(LakeReader.open(lake).rows(SILVER))
        .extracting(r -> r.get("artifact_id"))
        .containsExactly("k1", "k2");
  }

  @Test
  void aCompactionIsListedAsSuchAndItsReplacedFileIsVacuumedLikeAnyOther() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, List.of(new Batch(0, 10, List.of(promote(1, "k1"), promote(2, "k2")))));
    String file = LakeReader.open(lake).filePaths(SILVER).get(0);
    // Another engine's OPTIMIZE: dataChange = false on both actions, no txn of ours.
    OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), file);
    List<TableHistory.Version> history = LakeReader.open(lake).history(SILVER);
    TableHistory.Version compaction = history.get(history.size() - 1);
    assertThat(compaction.operation()).isEqualTo(TableHistory.Operation.COMPACTION);
    assertThat(compaction.seqFrom()).as("covers no seq").isEqualTo(-1);
    assertThat(compaction.txnVersion()).isEqualTo(10);

    Instant now = Instant.now().plus(Duration.ofDays(8));
    Vacuum.Result result =
        new Vacuum(new KernelTableReader(lake), Clock.fixed(now, ZoneOffset.UTC))
            .run(SILVER, RETENTION, false);
    assertThat(result.deleted()).containsExactly(file);
    assertThat(LakeReader.open(lake).rows(SILVER)).hasSize(2);
  }

  /** Sets the modification time of the table's commit file {@code version}. */
  private void touch(TableId table, long version, Instant time) throws IOException {
    Path commit =
        dir.resolve(table.relativePath()).resolve("_delta_log").resolve(String.format("%020d.json",
            version));
    Files.setLastModifiedTime(commit, FileTime.from(time));
  }

  private List<Path> dataFiles(TableId table) throws IOException {
    try (Stream<Path> files = Files.walk(dir.resolve(table.relativePath()))) {
      return files
          .filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log"))
          .toList();
    }
  }

  /** Every regular file under {@code root} whose bytes contain {@code text}'s UTF-8 bytes. */
  static List<Path> containsBytes(Path root, String text) throws IOException {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    List<Path> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        if (indexOf(Files.readAllBytes(file), needle) >= 0) {
          found.add(file);
        }
      }
    }
    return found;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static OutboxEvent promote(long seq, String artifact) {
    return Events.promote(seq, TENANT, artifact, 1, "body-" + artifact);
  }

  private static OutboxEvent retract(long seq, EventKind kind, String artifact) {
    return Events.retract(seq, TENANT, kind, artifact, 1);
  }
}
