package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.ParquetFiles;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/**
 * No held body reaches a lake file: a canary planted in every body that must not be promoted is
 * searched for in every value of every column of every Parquet file (decompressed) and in the raw
 * bytes of every other file under the lake root. Valid bodies appear in silver files only.
 */
class NoHeldBodyITCase {
  private static final String CANARY = "CANARY-7f3a-held-body";
  private static final String VALID = "VALID-BODY-";

  @TempDir static Path dir;
  private static LakeConfig lake;
  private static final List<OutboxEvent> events = new ArrayList<>();

  @BeforeAll
  static void writeTheLake() throws Exception {
    // Twelve batches at a log checkpoint every 10 commits, so that the log of the busiest tables
    // reaches a Parquet checkpoint too.
    lake = SinkDriver.lake(dir).withLogCheckpointInterval(10);
    long seq = 0;
    for (int batch = 0; batch < 12; batch++) {
      long from = seq;
      List<OutboxEvent> batchEvents = new ArrayList<>();
      for (String tenant : List.of("acme", "beta")) {
        batchEvents.add(canaryIn(Events.journal(++seq, tenant)));
        batchEvents.add(canaryIn(Events.retraction(++seq, tenant, EventKind.ERASE)));
        batchEvents.add(Events.materialize(++seq, tenant, VALID + seq));
        batchEvents.add(unratified(++seq, tenant));
        batchEvents.add(mismatched(++seq, tenant));
        batchEvents.add(
            canaryIn(Events.journal(++seq, tenant))
                .withError(new RowError(ErrorClass.UNPARSEABLE_ENVELOPE, "bad envelope")));
      }
      batchEvents.add(
          canaryIn(Events.journal(++seq, "acme")).toBuilder().tenantId("../acme").build());
      events.addAll(batchEvents);
      SinkDriver.run(lake, List.of(new Batch(from, seq, batchEvents)));
    }
  }

  @Test
  void canaryIsInNoFileAndValidBodiesOnlyInSilver() throws Exception {
    byte[] canary = CANARY.getBytes(StandardCharsets.UTF_8);
    byte[] valid = VALID.getBytes(StandardCharsets.UTF_8);
    List<Path> parquet = ParquetFiles.under(dir);
    assertThat(parquet).anyMatch(p -> p.toString().contains("_delta_log")); // a checkpoint
    int validBodiesSeen = 0;
    for (Path file : parquet) {
      boolean silverData =
          file.getParent().getFileName().toString().equals("memories")
              && file.getParent().getParent().getFileName().toString().equals("silver");
      for (byte[] value : ParquetFiles.binaryValues(file)) {
        assertThat(ParquetFiles.contains(value, canary)).as(file.toString()).isFalse();
        if (ParquetFiles.contains(value, valid)) {
          assertThat(silverData).as("valid body outside silver data: " + file).isTrue();
          validBodiesSeen++;
        }
      }
    }
    assertThat(validBodiesSeen).isEqualTo(24);
    for (Path file : ParquetFiles.nonParquetUnder(dir)) {
      byte[] bytes = Files.readAllBytes(file);
      assertThat(ParquetFiles.contains(bytes, canary)).as(file.toString()).isFalse();
      assertThat(ParquetFiles.contains(bytes, valid)).as(file.toString()).isFalse();
    }
  }

  @Test
  void digestMismatchGoesToDeadLetterNeverSilver() throws Exception {
    LakeReader reader = LakeReader.open(lake);
    TableId deadLetter = TableId.of("acme", TableKind.DEAD_LETTER);
    List<Map<String, Object>> mismatches =
        reader.rows(deadLetter).stream()
            .filter(r -> "DIGEST_MISMATCH".equals(r.get("error_class")))
            .toList();
    assertThat(mismatches).hasSize(12);
    for (Map<String, Object> row : mismatches) {
      assertThat(row.get("body_sha256"))
          .isEqualTo(EventValidator.sha256Hex(canaryBody((Long) row.get("seq"))));
    }
    List<Long> silverSeqs =
        reader.contents(TableId.of("acme", TableKind.SILVER_MEMORIES)).orElseThrow().seqs();
    List<Long> bronzeSeqs =
        reader.contents(TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS)).orElseThrow().seqs();
    for (Map<String, Object> row : reader.rows(deadLetter)) {
      assertThat(silverSeqs).doesNotContain((Long) row.get("seq"));
      assertThat(bronzeSeqs).doesNotContain((Long) row.get("seq"));
    }
    assertThat(reader.rows(deadLetter))
        .extracting(r -> r.get("error_class"))
        .containsOnly("DIGEST_MISMATCH", "UNRATIFIED_BODY", "UNPARSEABLE_ENVELOPE");
  }

  @Test
  void invalidTenantGoesUnderInvalidAndEveryRowStaysUnderItsTenant() throws Exception {
    LakeReader reader = LakeReader.open(lake);
    List<Map<String, Object>> invalid = reader.rows(TableId.invalidTenantDeadLetter());
    assertThat(invalid).hasSize(12).allMatch(r -> "../acme".equals(r.get("tenant_id")));
    assertThat(invalid).allMatch(r -> "INVALID_TENANT".equals(r.get("error_class")));
    assertThat(reader.tables())
        .extracting(TableId::relativePath)
        .containsExactly(
            "_invalid/dead_letter",
            "acme/bronze/journal_events",
            "acme/dead_letter",
            "acme/gold/lineage",
            "acme/silver/memories",
            "beta/bronze/journal_events",
            "beta/dead_letter",
            "beta/gold/lineage",
            "beta/silver/memories");
    long total = 0;
    for (TableId table : reader.tables()) {
      List<Map<String, Object>> rows = reader.rows(table);
      boolean perEvent =
          table.kind() == TableKind.BRONZE_JOURNAL_EVENTS || table.kind() == TableKind.DEAD_LETTER;
      total += perEvent ? rows.size() : 0;
      if (!table.prefix().equals(TableId.INVALID_TENANT_PREFIX)) {
        assertThat(rows)
            .as(table.toString())
            .allMatch(r -> table.prefix().equals(r.get("tenant_id")));
      }
    }
    // Bronze plus dead letters cover every seq exactly once.
    assertThat(total).isEqualTo(events.size());
  }

  private static byte[] canaryBody(long seq) {
    return (CANARY + "-" + seq).getBytes(StandardCharsets.UTF_8);
  }

  private static OutboxEvent canaryIn(OutboxEvent event) {
    return event.toBuilder().body(canaryBody(event.seq())).build();
  }

  /** Ratified by its own writer: a held body. Its digest matches, so only ratification stops it. */
  private static OutboxEvent unratified(long seq, String tenant) {
    byte[] body = canaryBody(seq);
    OutboxEvent event = Events.materialize(seq, tenant, "unused");
    return event.toBuilder()
        .ratifiedBy(event.writerIdentity())
        .body(body)
        .ciphertextDigest(EventValidator.sha256Hex(body))
        .build();
  }

  private static OutboxEvent mismatched(long seq, String tenant) {
    return Events.materialize(seq, tenant, "the body the digest was made for").toBuilder()
        .body(canaryBody(seq))
        .build();
  }
}
