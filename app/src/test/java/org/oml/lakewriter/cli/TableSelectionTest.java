package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;

/** Issue 15 item 4: {@code --table} selects the gold tables, by zone or by path. */
class TableSelectionTest {
  @Test
  void goldSelectsTheThreeGoldTablesAndPathsSelectOne() {
    assertThat(TableSelection.kinds("gold"))
        .containsExactlyInAnyOrder(
            TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES, TableKind.GOLD_WORKAREAS);
    assertThat(TableSelection.kind("gold/lineage")).isEqualTo(TableKind.GOLD_LINEAGE);
    assertThat(TableSelection.kind("GOLD/WORKAREAS")).isEqualTo(TableKind.GOLD_WORKAREAS);
    assertThat(TableSelection.kind("silver")).isEqualTo(TableKind.SILVER_MEMORIES);
    assertThat(TableSelection.kind("bronze/journal_events"))
        .isEqualTo(TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(TableSelection.one("acme", "gold/workarea_memories"))
        .isEqualTo(TableId.of("acme", TableKind.GOLD_WORKAREA_MEMORIES));
  }

  @Test
  void anUnknownTableAndGoldWhereOneTableIsNeededAreNamed() {
    assertThatThrownBy(() -> TableSelection.kind("platinum"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--table is platinum")
        .hasMessageContaining("gold/workarea_memories");
    assertThatThrownBy(() -> TableSelection.one("acme", "gold"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("names 3 tables");
  }
}
