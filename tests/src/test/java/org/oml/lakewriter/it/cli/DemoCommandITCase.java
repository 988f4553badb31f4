package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.it.support.CliRun;

/**
 * The demo's entry point with a small workload: what it prints matches the outbox, and its tables
 * include each tenant's gold tables (issue 15).
 */
class DemoCommandITCase {
  @TempDir Path tmp;

  @Test
  void theDemoPrintsEveryTenantsTablesAndCountsThatMatchTheOutbox() throws Exception {
    CliRun.Result run =
        CliRun.run("demo", "--events", "400", "--tenants", "3", "--json", "--dir", tmp.toString());
    String printed = run.out();
    assertThat(run.exitCode()).as(printed + run.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(printed);

    JsonNode traffic = doc.get("traffic");
    long committed = traffic.get("committed_rows").asLong();
    assertThat(committed).isEqualTo(400);
    assertThat(doc.at("/verify/ok").asBoolean()).isTrue();
    assertThat(doc.at("/verify/problems")).isEmpty();
    long poison = doc.get("poison_rows").asLong();
    assertThat(poison).isEqualTo(3);
    assertThat(doc.at("/verify/outbox_rows").asLong()).isEqualTo(committed + poison);
    long deadLetters = 0;
    for (JsonNode tenant : doc.at("/verify/tenants")) {
      deadLetters += tenant.get("dead_letters").asLong();
    }
    assertThat(deadLetters).isEqualTo(poison);

    // Per tenant: bronze holds every committed row, silver every promotion.
    Map<String, Map<String, Long>> rows = new HashMap<>();
    for (JsonNode t : doc.get("tables")) {
      rows.computeIfAbsent(t.get("tenant").asText(), k -> new HashMap<>())
          .put(t.get("table").asText(), t.get("rows").asLong());
      assertThat(t.get("txn_version").asLong()).isPositive();
      if (!t.get("table").asText().equals("gold/workarea_memories")) {
        // Memories leave with revocations and retractions: that table may be empty, no file.
        assertThat(t.get("files").asInt()).isPositive();
      }
    }
    Set<String> tenants = new HashSet<>();
    Iterator<Map.Entry<String, JsonNode>> byTenant =
        traffic.get("committed_by_tenant_and_kind").fields();
    while (byTenant.hasNext()) {
      Map.Entry<String, JsonNode> tenant = byTenant.next();
      tenants.add(tenant.getKey());
      long all = 0;
      for (JsonNode n : tenant.getValue()) {
        all += n.asLong();
      }
      long promoted = tenant.getValue().path("materialize").asLong();
      assertThat(rows).containsKey(tenant.getKey());
      assertThat(rows.get(tenant.getKey())).containsEntry("bronze/journal_events", all);
      if (promoted > 0) {
        assertThat(rows.get(tenant.getKey())).containsEntry("silver/memories", promoted);
      }
      // Gold (issue 15): a lineage row per written or promoted version, a row per workarea with
      // a validation event; the verification above compared them with the fold of the outbox.
      assertThat(rows.get(tenant.getKey()).get("gold/lineage")).as("gold/lineage").isPositive();
      long validations = tenant.getValue().path("workarea_validated").asLong()
          + tenant.getValue().path("workarea_invalidated").asLong();
      if (validations > 0) {
        assertThat(rows.get(tenant.getKey()).get("gold/workareas")).as("gold/workareas")
            .isBetween(1L, validations);
      }
    }
    assertThat(tenants).hasSize(3);
  }
}
