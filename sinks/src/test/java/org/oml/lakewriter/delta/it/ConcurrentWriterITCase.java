package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.delta.testing.SinkDriver;

/**
 * Two writers with the same application id race for the same table, round after round, on the local
 * filesystem. With the atomic log store exactly one wins each round; the other learns that the
 * batch is already applied. The default HDFSLogStore let both win in such races.
 */
class ConcurrentWriterITCase {
  private static final int ROUNDS = 200;
  private static final TableId TABLE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path dir;

  @Test
  void secondWriterWithTheSameAppIdIsRejectedEveryRound() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (KernelDeltaTableClient first = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient second = new KernelDeltaTableClient(lake)) {
      CyclicBarrier start = new CyclicBarrier(2);
      int doubleWins = 0;
      for (long r = 1; r <= ROUNDS; r++) {
        long round = r;
        Future<CommitOutcome> a = pool.submit(() -> race(first, start, round, 1));
        Future<CommitOutcome> b = pool.submit(() -> race(second, start, round, 2));
        List<CommitOutcome> outcomes = List.of(a.get(), b.get());
        assertThat(outcomes).as("round " + round).containsOnlyOnce(CommitOutcome.COMMITTED);
        if (!outcomes.contains(CommitOutcome.ALREADY_APPLIED)) {
          doubleWins++;
        }
      }
      assertThat(doubleWins).isZero();
    } finally {
      pool.shutdownNow();
    }

    TableContents contents = LakeReader.open(lake).contents(TABLE).orElseThrow();
    assertThat(contents.txnVersion()).isEqualTo(ROUNDS);
    assertThat(contents.fileCount()).isEqualTo(ROUNDS);
    assertThat(contents.rows()).hasSize(ROUNDS);
    assertThat(contents.tableVersion()).isEqualTo(ROUNDS); // version 0 created the table
    assertEachCommitHasOneTxnInOrder(dir.resolve(TABLE.relativePath()).resolve("_delta_log"));
  }

  /** Writes this writer's own file for the round, then commits at the same moment as the other. */
  private static CommitOutcome race(
      KernelDeltaTableClient client, CyclicBarrier start, long round, int writer) throws Exception {
    TableRow row =
        TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, round)
            .set("kind", "journal")
            .set("tenant_id", "acme")
            .set("writer_identity", "writer-" + writer)
            .build();
    List<DataFile> files = client.writeDataFiles(TABLE, List.of(row));
    start.await();
    return client.commit(TABLE, round, files);
  }

  private static void assertEachCommitHasOneTxnInOrder(Path log) throws Exception {
    List<Path> commits;
    try (Stream<Path> files = Files.list(log)) {
      commits =
          files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
    }
    assertThat(commits).hasSize(ROUNDS + 1);
    List<Long> txnVersions = new ArrayList<>();
    for (Path commit : commits) {
      for (String line : Files.readAllLines(commit, StandardCharsets.UTF_8)) {
        if (line.startsWith("{\"txn\"")) {
          txnVersions.add(Long.parseLong(line.replaceAll(".*\"version\":(\\d+).*", "$1")));
        }
      }
    }
    List<Long> expected = new ArrayList<>();
    for (long r = 1; r <= ROUNDS; r++) {
      expected.add(r);
    }
    assertThat(txnVersions).containsExactlyElementsOf(expected);
  }
}
