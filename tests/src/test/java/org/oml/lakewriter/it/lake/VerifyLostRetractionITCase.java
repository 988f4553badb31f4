package org.oml.lakewriter.it.lake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * Issue 11 item 5 on the real writer: the lake the job writes (promotions, then a demote, an
 * erase and a reassign) verifies OK; then a copy-on-write commit through Kernel drops the
 * demote's rewrite (the row is put back as it was before) and adds a second row for another key.
 * The row counts barely move, which is all the old {@code verify} looked at; now {@code lakewriter
 * verify} exits 1 and names a STATE_MISMATCH and a DUPLICATE_ROW.
 */
class VerifyLostRetractionITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final int STATE = LakeSchemas.SILVER_MEMORIES.indexOf("state");

  @Test
  void verifyNamesARetractionDroppedFromTheWritersLake() throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    JobClient job =
        LakeWriterJobs.start(LakeWriterJobs.config(options), tmp.resolve("cp"), null, "verify-it");
    long last;
    try (Connection c = db.connect()) {
      for (int i = 1; i <= 4; i++) {
        OutboxWriter.materialize(c, "acme", "a" + i, 1, ("body " + i).getBytes(StandardCharsets.UTF_8));
      }
      OutboxWriter.retract(c, "acme", "demote", "a1", 1);
      OutboxWriter.retract(c, "acme", "erase", "a2", 1);
      last = OutboxWriter.retract(c, "acme", "reassign", "a3", 1);
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, last, WAIT);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    CliRun.Result ok = CliRun.run(options, "verify");
    assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
    assertThat(ok.out()).contains("verify: OK");

    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(options.get("lake.root")))) {
      CandidateFiles files =
          client.filesThatMayHold(SILVER, List.of(new ArtifactKey("a1", 1), new ArtifactKey("a4", 1)));
      List<TableRow> rows = new ArrayList<>();
      for (DataFile f : files.files()) {
        for (TableRow row : client.readDataFile(SILVER, f)) {
          if ("a1".equals(row.value(0))) {
            row = copy(row, row.seq()).set("state", "active").build(); // the demote undone
          }
          rows.add(row);
          if ("a4".equals(row.value(0))) {
            rows.add(copy(row, row.seq()).build()); // and a duplicate
          }
        }
      }
      assertThat(rows).anySatisfy(r -> assertThat(r.value(STATE)).isEqualTo("active"));
      client.commitRewrite(SILVER, files.txnVersion() + 1, client.writeDataFiles(SILVER, rows),
          new Rewrite(files.txnVersion(), files.files()));
    }
    CliRun.Result found = CliRun.run(options, "verify", "--frontier", Long.toString(last));
    assertThat(found.exitCode()).as(found.out() + found.err()).isEqualTo(1);
    assertThat(found.out())
        .contains("verify: FAILED")
        .contains("STATE_MISMATCH acme/silver/memories a1@1: state is active in silver, the outbox"
            + " fold says demoted")
        .contains("DUPLICATE_ROW acme/silver/memories a4@1");
  }

  /** A builder holding every column of the silver row, with {@code seq} as given. */
  private static TableRow.Builder copy(TableRow row, long seq) {
    TableRow.Builder b = TableRow.builder(LakeSchemas.SILVER_MEMORIES, seq);
    List<String> names = LakeSchemas.SILVER_MEMORIES.names();
    for (int i = 0; i < names.size(); i++) {
      if (!names.get(i).equals("seq")) {
        b.set(names.get(i), row.value(i));
      }
    }
    return b;
  }
}
