package org.oml.lakewriter.delta.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;

class LakeQuarantineStoreTest {
  @TempDir Path dir;

  /** Format 1 as written by this release; kept verbatim so that later releases still read it. */
  private static final String FORMAT_1 =
      "{\"format\":1,\"tenant\":\"acme\",\"table\":\"acme/silver/memories\",\"action\":\"REPLAN\","
          + "\"reason\":\"files gone\",\"batch\":\"(10, 20]\",\"since\":\"2026-11-30T21:00:00Z\","
          + "\"resumeAfter\":10,\"txnVersions\":{\"acme/silver/memories\":10},\"replans\":1,"
          + "\"released\":false,\"replay\":{\"writer\":\"w-1\",\"from\":10,\"batchEnd\":40}}";

  @Test
  void putListDeleteAcrossNewStoreInstances() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    Quarantine record = record("acme", 10);
    new LakeQuarantineStore(lake).put(record);
    new LakeQuarantineStore(lake).put(record.covering(5));

    Map<String, Quarantine> listed = new LakeQuarantineStore(lake).list();
    assertThat(listed).containsOnlyKeys("acme");
    assertThat(listed.get("acme").resumeAfter()).isEqualTo(5);
    Path tenantDir = dir.resolve(LakeQuarantineStore.DIRECTORY).resolve("acme");
    try (Stream<Path> files = Files.list(tenantDir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactly(String.format("%020d.json", 2)); // the older generation is gone
    }

    new LakeQuarantineStore(lake).delete("acme");
    assertThat(new LakeQuarantineStore(lake).list()).isEmpty();
    assertThat(new LakeQuarantineStore(lake).list()).isEmpty(); // no directory at all is fine
  }

  @Test
  void aCrashLeavesTheOlderGenerationOrTheNewerOneNeverATornRecord() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    new LakeQuarantineStore(lake).put(record("acme", 10));
    Path tenantDir = dir.resolve(LakeQuarantineStore.DIRECTORY).resolve("acme");
    // A writer died after writing its temporary file, before the rename; and an older generation
    // survived a crash during delete.
    Files.writeString(tenantDir.resolve(".00000000000000000002.json.x.tmp"), "{\"form");
    Files.writeString(
        tenantDir.resolve(String.format("%020d.json", 0)),
        new String(record("acme", 99).toJson(), StandardCharsets.UTF_8));
    assertThat(new LakeQuarantineStore(lake).list().get("acme").resumeAfter()).isEqualTo(10);
  }

  @Test
  void readsFormatOneAndRefusesANewerFormat() throws Exception {
    Quarantine q = Quarantine.fromJson(FORMAT_1.getBytes(StandardCharsets.UTF_8), "stored");
    assertThat(q.tenant()).isEqualTo("acme");
    assertThat(q.action()).isEqualTo(Quarantine.Action.REPLAN);
    assertThat(q.replay()).isEqualTo(new Quarantine.Replay("w-1", 10, 40));
    assertThat(q.admits(40)).isTrue();
    assertThat(q.admits(39)).isFalse();
    assertThatThrownBy(
            () ->
                Quarantine.fromJson(
                    FORMAT_1.replace("\"format\":1", "\"format\":2").getBytes(StandardCharsets.UTF_8),
                    "stored"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("format 2")
        .hasMessageContaining("upgrade");
  }

  private static Quarantine record(String tenant, long resumeAfter) {
    return new Quarantine(
        tenant,
        tenant + "/silver/memories",
        Quarantine.Action.REPLAN,
        "files gone",
        "(10, 20]",
        Instant.parse("2026-11-30T21:00:00Z"),
        resumeAfter,
        Map.of(),
        1,
        false,
        null);
  }
}
