package org.oml.lakewriter.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.ColumnType;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;

class LakeSchemasTest {
  @Test
  void indexOfIsTheColumnsPositionForEveryTable() {
    for (TableKind kind : TableKind.values()) {
      TableSchema schema = LakeSchemas.of(kind);
      List<String> names = schema.names();
      for (int i = 0; i < names.size(); i++) {
        assertThat(schema.indexOf(names.get(i))).as(kind + " " + names.get(i)).isEqualTo(i);
      }
    }
  }

  @Test
  void anUndeclaredColumnIsNamed() {
    assertThatThrownBy(() -> LakeSchemas.GOLD_LINEAGE.indexOf("body"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no column body in [artifact_id, version, seq");
  }

  @Test
  void schemasAreEqualByColumnsAndIndexedCount() {
    List<Column> columns =
        List.of(new Column("seq", ColumnType.LONG, false), new Column("a", ColumnType.STRING, true));
    assertThat(new TableSchema(columns, 1)).isEqualTo(new TableSchema(columns, 1));
    assertThat(new TableSchema(columns, 1).hashCode())
        .isEqualTo(new TableSchema(columns, 1).hashCode());
    assertThat(new TableSchema(columns, 1)).isNotEqualTo(new TableSchema(columns, 2));
    assertThatThrownBy(() -> new TableSchema(columns, 3))
        .hasMessageContaining("indexedColumns out of range");
  }
}
