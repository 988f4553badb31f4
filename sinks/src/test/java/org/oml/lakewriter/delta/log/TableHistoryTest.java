package org.oml.lakewriter.delta.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.log.TableHistory.Operation;
import org.oml.lakewriter.delta.log.TableHistory.Version;
import org.oml.lakewriter.delta.log.TableLog.Commit;
import org.oml.lakewriter.delta.log.TableLog.FileAction;

class TableHistoryTest {
  private static final FileAction ADD = new FileAction("a.parquet", true, -1, 10);
  private static final FileAction REMOVE = new FileAction("b.parquet", true, 5, 10);
  private static final FileAction MOVE_IN = new FileAction("c.parquet", false, -1, 10);
  private static final FileAction MOVE_OUT = new FileAction("d.parquet", false, 5, 10);

  @Test
  void eachVersionCoversTheSeqsAboveThePreviousTxnVersionUpToItsOwn() {
    List<Version> versions =
        TableHistory.of(
            List.of(
                commit(0, -1, List.of(), List.of()),
                commit(1, 20, List.of(ADD), List.of()),
                commit(2, 35, List.of(ADD), List.of(REMOVE)),
                commit(3, -1, List.of(MOVE_IN), List.of(MOVE_OUT)),
                commit(4, 90, List.of(ADD), List.of())),
            -1);
    assertThat(versions)
        .extracting(Version::operation)
        .containsExactly(
            Operation.METADATA, Operation.DATA, Operation.REWRITE, Operation.COMPACTION,
            Operation.DATA);
    assertThat(versions)
        .extracting(v -> v.seqFrom() + ".." + v.seqTo() + "@" + v.txnVersion())
        .containsExactly("-1..-1@-1", "1..20@20", "21..35@35", "-1..-1@35", "36..90@90");
    assertThat(TableHistory.asOfSeq(versions, 30)).map(Version::version).contains(2L);
    assertThat(TableHistory.asOfSeq(versions, 35)).map(Version::version).contains(2L);
    assertThat(TableHistory.asOfSeq(versions, 36)).map(Version::version).contains(4L);
    assertThat(TableHistory.asOfSeq(versions, 91)).isEmpty();
    assertThat(versions.get(2).covers(21)).isTrue();
    assertThat(versions.get(2).covers(36)).isFalse();
  }

  @Test
  void aLogCleanedUpToACheckpointStartsFromTheTxnVersionBeforeIt() {
    List<Version> versions =
        TableHistory.of(List.of(commit(40, 500, List.of(ADD), List.of())), 450);
    assertThat(versions.get(0).seqFrom()).isEqualTo(451);
    assertThat(versions.get(0).seqTo()).isEqualTo(500);
  }

  private static Commit commit(long v, long txn, List<FileAction> adds, List<FileAction> removes) {
    return new Commit(v, Instant.ofEpochSecond(v), txn, "WRITE", adds, removes);
  }
}
