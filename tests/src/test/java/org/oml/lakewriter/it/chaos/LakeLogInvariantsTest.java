package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's log checks catch each violation they name, on hand-written Delta logs. */
class LakeLogInvariantsTest {
  @TempDir Path lake;

  @Test
  void aCleanLogHasNoViolation() throws Exception {
    Path log = table("acme/bronze/journal_events");
    commit(log, 0, txn(10), add("a.parquet", 1));
    commit(log, 1, txn(20), add("b.parquet", 11));
    commit(log, 2, add("c.parquet", 1)); // a compaction: no txn, may hold old seqs

    LakeLogInvariants.Result result = LakeLogInvariants.check(lake);

    assertThat(result.violations()).isEmpty();
    assertThat(result.commits()).isEqualTo(3);
    assertThat(result.addedFiles()).isEqualTo(3);
  }

  @Test
  void eachViolationIsNamed() throws Exception {
    Path log = table("acme/bronze/journal_events");
    commit(log, 0, txn(10), add("a.parquet", 1));
    commit(log, 1, txn(10), add("a.parquet", 11));
    commit(log, 2, txn(30), add("d.parquet", 9));

    assertThat(LakeLogInvariants.check(lake).violations())
        .containsExactly(
            "acme/bronze/journal_events v1: file a.parquet added twice",
            "acme/bronze/journal_events v1: txn version 10 after 10 (not rising)",
            "acme/bronze/journal_events v2: adds seq 9, behind the frontier 10 the table already"
                + " had");
  }

  private Path table(String name) throws Exception {
    return Files.createDirectories(lake.resolve(name).resolve("_delta_log"));
  }

  private static void commit(Path log, int version, String... actions) throws Exception {
    Files.writeString(
        log.resolve(String.format("%020d.json", version)), String.join("\n", actions) + "\n");
  }

  private static String txn(long version) {
    return "{\"txn\":{\"appId\":\"oml-lakewriter\",\"version\":" + version + "}}";
  }

  private static String add(String path, long minSeq) {
    return "{\"add\":{\"path\":\"" + path + "\",\"dataChange\":true,\"stats\":"
        + "\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"seq\\\":" + minSeq + "}}\"}}";
  }
}
