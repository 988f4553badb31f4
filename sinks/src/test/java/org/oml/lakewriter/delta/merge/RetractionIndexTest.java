package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.promoted;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.retraction;
import static org.oml.lakewriter.delta.merge.StateTransitionsTest.value;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.event.EventKind;

/**
 * The key-to-file index behind the copy-on-write: it names the only files a retraction reads, and a
 * wrong name costs a rebuild from the lake, never a retraction that misses its row.
 */
class RetractionIndexTest {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);

  private final FakeDeltaTableClient lake = new FakeDeltaTableClient();

  @Test
  void aFileTheIndexNamesThatIsNoLongerLiveRebuildsTheIndexInsteadOfMissingTheRow()
      throws Exception {
    // A client that hides the foreign commit from the log-version check: only the named file's
    // absence from the table can tell the index it is stale.
    HidingForeignCommits client = new HidingForeignCommits(lake);
    SilverMerge merge = new SilverMerge(client);
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 1)), List.of()));
    commit(20, merge.write("(10, 20]", 20, SILVER, List.of(promoted("b", 11)), List.of()));
    merge.barrier();
    lake.outOfBandCommit(SILVER, rows -> rows); // an OPTIMIZE: both rows in one new file
    client.hidden = 1;

    SilverMerge.Outcome outcome =
        merge.write(
            "(20, 30]", 30, SILVER, List.of(), List.of(retraction(21, "a", EventKind.DEMOTE)));

    assertThat(merge.keyIndexRebuilds()).isEqualTo(1);
    assertThat(outcome.retractsWithoutRow()).isZero();
    assertThat(outcome.commit().removes())
        .extracting(DataFile::relativePath)
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("foreign-"));
    commit(30, outcome);
    List<TableRow> rows = lake.committedRows(SILVER);
    assertThat(rows).extracting(r -> value(r, "artifact_id")).containsExactly("b", "a");
    assertThat(rows)
        .extracting(r -> value(r, "state"))
        .containsExactly(StateTransitions.ACTIVE, StateTransitions.DEMOTED);
  }

  @Test
  void aRetractionReadsOnlyTheFilesThatHoldItsKeysAndAnUnknownKeyReadsNothing()
      throws Exception {
    SilverMerge merge = new SilverMerge(lake);
    SilverMerge.Outcome first =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 1)), List.of());
    commit(10, first);
    commit(20, merge.write("(10, 20]", 20, SILVER, List.of(promoted("b", 11)), List.of()));
    commit(30, merge.write("(20, 30]", 30, SILVER, List.of(promoted("c", 21)), List.of()));

    SilverMerge.Outcome outcome =
        merge.write(
            "(30, 40]",
            40,
            SILVER,
            List.of(),
            List.of(
                retraction(31, "a", EventKind.ERASE), retraction(32, "never", EventKind.DEMOTE)));
    assertThat(outcome.filesRead()).isEqualTo(1);
    assertThat(outcome.retractsWithoutRow()).isEqualTo(1);
    assertThat(outcome.commit().removes()).isEqualTo(first.commit().files());
    assertThat(lake.log()).filteredOn(l -> l.startsWith("read-file")).hasSize(1);
    assertThat(lake.log()).noneMatch(l -> l.startsWith("scan ")); // no statistics scan any more

    // Its key moved to the rewritten copy: the next retraction of it reads that copy.
    SilverMerge.Outcome again =
        merge.write(
            "(40, 50]", 50, SILVER, List.of(), List.of(retraction(41, "a", EventKind.DEMOTE)));
    assertThat(again.filesRead()).isEqualTo(1);
    assertThat(lake.log())
        .filteredOn(l -> l.startsWith("read-file"))
        .last()
        .isEqualTo("read-file " + SILVER + " " + outcome.commit().files().get(0).relativePath());
  }

  @Test
  void aFileRewrittenAgainAndAgainHandsAllItsKeysToEachNewCopy() throws Exception {
    SilverMerge merge = new SilverMerge(lake);
    commit(
        10,
        merge.write(
            "(0, 10]",
            10,
            SILVER,
            List.of(promoted("a", 1), promoted("b", 2), promoted("c", 3), promoted("d", 4)),
            List.of()));
    // Each retraction rewrites the one file that holds all four keys: twice before the first
    // rewrite commits (the second finds the first's pending copy), then after a barrier.
    SilverMerge.Outcome first = retract(merge, 20, "a");
    SilverMerge.Outcome second = retract(merge, 30, "b");
    assertThat(second.commit().removes()).isEqualTo(first.commit().files());
    commit(20, first);
    commit(30, second);
    merge.barrier();
    SilverMerge.Outcome third = retract(merge, 40, "c");
    assertThat(third.commit().removes()).isEqualTo(second.commit().files());
    commit(40, third);
    SilverMerge.Outcome fourth = retract(merge, 50, "d");
    assertThat(fourth.commit().removes()).isEqualTo(third.commit().files());
    commit(50, fourth);

    assertThat(List.of(first, second, third, fourth))
        .allSatisfy(outcome -> assertThat(outcome.filesRead()).isEqualTo(1));
    assertThat(merge.keyIndexRebuilds()).isZero();
    assertThat(lake.committedRows(SILVER))
        .extracting(r -> value(r, "artifact_id") + "=" + value(r, "state"))
        .containsExactly(demoted("a", "b", "c", "d"));
  }

  @Test
  void aKeyWithRowsInTwoFilesKeepsBothWhenOneOfThemIsRewritten() throws Exception {
    // A table written before rule 2: a has a row in both seeded files, b only in the first.
    SilverMerge writer = new SilverMerge(lake);
    commit(10, writer.write("(0, 10]", 10, SILVER, List.of(promoted("a", 1)), List.of()));
    commit(20, writer.write("(10, 20]", 20, SILVER, List.of(promoted("b", 11)), List.of()));
    List<TableRow> rows = lake.committedRows(SILVER);
    FakeDeltaTableClient old =
        new FakeDeltaTableClient()
            .withRows(SILVER, 20, List.of(rows.get(0), rows.get(1)))
            .withRows(SILVER, 20, List.of(rows.get(0)));
    SilverMerge merge = new SilverMerge(old);

    SilverMerge.Outcome ofB = retract(merge, 30, "b");
    assertThat(ofB.commit().removes())
        .extracting(DataFile::relativePath)
        .containsExactly("seed-0.parquet");
    assertThat(old.commitRewrite(SILVER, 30, ofB.commit().files(), ofB.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
    // a is in the untouched seed file and in the rewritten copy of the other: both are read.
    SilverMerge.Outcome ofA = retract(merge, 40, "a");
    assertThat(ofA.filesRead()).isEqualTo(2);
    assertThat(merge.keyIndexRebuilds()).isZero();
    assertThat(old.commitRewrite(SILVER, 40, ofA.commit().files(), ofA.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(old.committedRows(SILVER))
        .extracting(r -> value(r, "artifact_id") + "=" + value(r, "state"))
        .containsExactlyInAnyOrder(demoted("a", "a", "b"));
  }

  private static String[] demoted(String... keys) {
    return Arrays.stream(keys).map(k -> k + "=" + StateTransitions.DEMOTED).toArray(String[]::new);
  }

  private static SilverMerge.Outcome retract(SilverMerge merge, long batchEnd, String key)
      throws IOException {
    SilverMerge.Outcome outcome =
        merge.write(
            "(" + (batchEnd - 10) + ", " + batchEnd + "]",
            batchEnd,
            SILVER,
            List.of(),
            List.of(retraction(batchEnd - 9, key, EventKind.DEMOTE)));
    return outcome;
  }

  @Test
  void aFileHoldingAChangedKeyTheIndexPlacesElsewhereIsNotRewrittenUnderIt() throws Exception {
    SilverMerge writer = new SilverMerge(lake);
    SilverMerge.Outcome first =
        writer.write("(0, 10]", 10, SILVER, List.of(promoted("a", 1)), List.of());
    commit(10, first);
    commit(20, writer.write("(10, 20]", 20, SILVER, List.of(promoted("b", 11)), List.of()));
    String fileOfA = first.commit().files().get(0).relativePath();
    TableRow b = lake.committedRows(SILVER).get(1);
    // A's file, as the copy-on-write reads it, also holds b, which the index places in b's file
    // only: the file's columns were chosen for a's changes, and b's row would be rewritten twice.
    ForwardingDeltaTableClient bInBoth =
        new ForwardingDeltaTableClient(lake) {
          @Override
          public List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns)
              throws IOException {
            List<TableRow> rows = new ArrayList<>(delegate.readDataFile(table, file, columns));
            if (file.relativePath().equals(fileOfA)) {
              rows.add(b);
            }
            return rows;
          }
        };
    SilverMerge merge = new SilverMerge(bInBoth);
    assertThatThrownBy(
            () ->
                merge.write(
                    "(20, 30]",
                    30,
                    SILVER,
                    List.of(),
                    List.of(
                        retraction(21, "a", EventKind.DEMOTE),
                        retraction(22, "b", EventKind.DEMOTE))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("key index did not match the table in 3 plans");
    assertThat(merge.keyIndexRebuilds()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void aTableThatNeverMatchesTheIndexFailsTheBatchWithANamedError() throws Exception {
    SilverMerge writer = new SilverMerge(lake);
    commit(10, writer.write("(0, 10]", 10, SILVER, List.of(promoted("a", 1)), List.of()));
    ForwardingDeltaTableClient nothingLive =
        new ForwardingDeltaTableClient(lake) {
          @Override
          public LiveFiles liveFiles(TableId table, Collection<String> paths) throws IOException {
            return new LiveFiles(delegate.liveFiles(table, paths).snapshot(), Map.of());
          }
        };
    SilverMerge merge = new SilverMerge(nothingLive);
    assertThatThrownBy(
            () ->
                merge.write(
                    "(10, 20]",
                    20,
                    SILVER,
                    List.of(),
                    List.of(retraction(11, "a", EventKind.DEMOTE))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("acme/silver/memories")
        .hasMessageContaining("key index did not match the table in 3 plans");
  }

  private void commit(long batchEnd, SilverMerge.Outcome outcome) throws Exception {
    assertThat(
            lake.commitRewrite(
                SILVER, batchEnd, outcome.commit().files(), outcome.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
  }

  /** Reports log versions as if {@code hidden} foreign commits had not happened. */
  private static final class HidingForeignCommits extends ForwardingDeltaTableClient {
    long hidden;

    HidingForeignCommits(FakeDeltaTableClient delegate) {
      super(delegate);
    }

    @Override
    public SnapshotId snapshotId(TableId table) throws IOException {
      return hide(delegate.snapshotId(table));
    }

    @Override
    public SnapshotId forEachSilverKeyInFiles(
        TableId table, Map<String, List<ArtifactKey>> known, BiConsumer<String, ArtifactKey> keys)
        throws IOException {
      return hide(delegate.forEachSilverKeyInFiles(table, known, keys));
    }

    @Override
    public LiveFiles liveFiles(TableId table, Collection<String> paths) throws IOException {
      LiveFiles live = delegate.liveFiles(table, paths);
      return new LiveFiles(hide(live.snapshot()), live.files());
    }

    private SnapshotId hide(SnapshotId id) {
      return new SnapshotId(id.version() - hidden, id.txnVersion());
    }
  }
}
