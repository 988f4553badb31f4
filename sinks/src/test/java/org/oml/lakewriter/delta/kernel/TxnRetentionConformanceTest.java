package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.delta.kernel.KernelConformance.commitFile;
import static org.oml.lakewriter.delta.kernel.KernelConformance.commitTxn;
import static org.oml.lakewriter.delta.kernel.KernelConformance.latest;
import static org.oml.lakewriter.delta.kernel.KernelConformance.logDir;
import static org.oml.lakewriter.delta.kernel.KernelConformance.pin;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.UnknownConfigurationException;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;

/**
 * Behaviour 6 of the Kernel conformance suite: {@code delta.setTransactionRetentionDuration}.
 * Kernel 4.4.0 itself keeps every appId's latest txn action on log replay and in the checkpoints it
 * writes, whatever the property says; but it already drops expired txn actions from the {@code
 * .crc} checksums it writes, and other Delta engines (Delta Spark) drop them from their
 * checkpoints. A txn version that vanishes makes a replayed batch look new, so the writer refuses
 * any table that sets the property, and never sets it on its own tables.
 */
@DisplayNameGeneration(KernelConformance.WithKernelVersion.class)
class TxnRetentionConformanceTest {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final String RETENTION = "delta.setTransactionRetentionDuration";

  @TempDir Path lake;

  private LakeConfig config;
  private Configuration conf;
  private Engine engine;
  private String table;

  @BeforeEach
  void setUp() throws Exception {
    config = LakeConfig.of(lake.toUri().toString());
    conf = KernelEngines.hadoopConf(config);
    engine = KernelConformance.engine(conf);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      table = client.tablePath(BRONZE);
    }
  }

  @Test
  void runsOnTheKernelVersionItWasWrittenFor(TestInfo test) {
    KernelConformance.assertWrittenFor(test);
  }

  /**
   * A table with a one-hour retention and a txn action last updated in 1970: Kernel still reports
   * its version from the log and, once the commit files are gone, from the checkpoint Kernel wrote;
   * only the checksum Kernel writes leaves the expired txn out.
   */
  @Test
  void kernelKeepsExpiredTxnActionsOnReplayAndInCheckpoints() throws Exception {
    createWithRetention("interval 1 hours");
    // Version 1, as another engine writes it: a txn of another app, last updated long ago.
    new AtomicLocalLogStore(conf)
        .write(
            new org.apache.hadoop.fs.Path(commitFile(table, 1).toUri()),
            List.of(
                    "{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\"}}",
                    "{\"txn\":{\"appId\":\"old-app\",\"version\":7,\"lastUpdated\":1000}}")
                .iterator(),
            false,
            conf);
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, "old-app"))
        .as(pin("an expired txn action is read back on log replay"))
        .contains(7L);

    TransactionCommitResult result =
        commitTxn(engine, latest(engine, table), "conformance", "fresh-app", 1, 0); // version 2
    PostCommitHooks.run(engine, BRONZE, table, 1, result, false);
    Snapshot last = latest(engine, table);
    last.writeCheckpoint(engine);
    for (long v = 0; v < last.getVersion(); v++) {
      Files.delete(commitFile(table, v));
    }
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, "old-app"))
        .as(pin("an expired txn action is kept in the checkpoint Kernel writes"))
        .contains(7L);

    Path checksum = logDir(table).resolve(String.format("%020d.crc", last.getVersion()));
    assertThat(checksum).as(pin("the checksum hook wrote a .crc")).exists();
    assertThat(Files.readString(checksum))
        .as(pin("the .crc Kernel writes leaves the expired txn action out"))
        .contains("fresh-app")
        .doesNotContain("old-app");
  }

  @Test
  void theWriterRefusesATableWhoseTxnActionsCanExpire() throws Exception {
    createWithRetention("interval 30 days");
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      assertThatThrownBy(() -> client.readTxnVersion(BRONZE))
          .as(pin("opening the table for its txn version (the writer)"))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining(RETENTION)
          .hasMessageContaining("interval 30 days")
          .hasMessageContaining("UNSET TBLPROPERTIES");
      assertThatThrownBy(() -> client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)))
          .as(pin("writing data files to the table (the writer)"))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining(RETENTION);
      assertThatThrownBy(() -> client.commit(BRONZE, 10, List.of()))
          .as(pin("committing to the table (the committer)"))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining(RETENTION);
    }
    assertThat(latest(engine, table).getVersion()).as("nothing was committed").isZero();
  }

  @Test
  void theRefusalIgnoresTheCaseOfTheKey() {
    assertThatThrownBy(
            () ->
                KernelSchemas.requireTxnNeverExpires(
                    BRONZE, Map.of("delta.SetTransactionRetentionDuration", "interval 1 days")))
        .isInstanceOf(TableUnusableException.class)
        .hasMessageContaining("delta.SetTransactionRetentionDuration=interval 1 days");
    KernelSchemas.requireTxnNeverExpires(BRONZE, KernelSchemas.tableProperties(BRONZE.kind(), 10));
  }

  @Test
  void theWritersOwnTablesNeverSetTheRetention() throws Exception {
    for (TableKind kind : TableKind.values()) {
      assertThat(KernelSchemas.tableProperties(kind, 10)).doesNotContainKey(RETENTION);
    }
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      client.commit(
          BRONZE, 10, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)));
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(10);
    }
    assertThat(latest(engine, table).getTableProperties())
        .as(pin("the table the writer created"))
        .doesNotContainKey(RETENTION);
  }

  /**
   * Kernel 4.4.0 will not set the property ({@code UnknownConfigurationException}), so the table is
   * created the way another engine (Delta Spark) would leave it: the commit file of version 0 of a
   * table Kernel created with the writer's schema, with the property added to its metadata.
   */
  private void createWithRetention(String retention) throws Exception {
    Map<String, String> properties = new HashMap<>(KernelSchemas.tableProperties(BRONZE.kind(), 10));
    properties.put(RETENTION, retention);
    assertThatThrownBy(
            () ->
                TableManager.buildCreateTableTransaction(
                        table, KernelSchemas.structOf(BRONZE.kind()), "conformance")
                    .withTableProperties(properties))
        .as(pin("Kernel refuses to set " + RETENTION + " itself"))
        .isExactlyInstanceOf(UnknownConfigurationException.class);

    String template = lake.resolve("template").toUri().toString();
    TableManager.buildCreateTableTransaction(
            template, KernelSchemas.structOf(BRONZE.kind()), "another-engine")
        .withTableProperties(KernelSchemas.tableProperties(BRONZE.kind(), 10))
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    List<String> actions = new ArrayList<>();
    for (String action : KernelConformance.actionsOf(template, 0)) {
      actions.add(
          action.replace(
              "\"configuration\":{",
              "\"configuration\":{\"" + RETENTION + "\":\"" + retention + "\","));
    }
    new AtomicLocalLogStore(conf)
        .write(
            new org.apache.hadoop.fs.Path(commitFile(table, 0).toUri()),
            actions.iterator(),
            false,
            conf);
    assertThat(latest(engine, table).getTableProperties()).containsEntry(RETENTION, retention);
  }
}
