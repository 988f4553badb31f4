package org.oml.lakewriter.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;

class TableRowTest {
  private static final TableSchema SILVER = LakeSchemas.of(TableKind.SILVER_MEMORIES);

  @Test
  void setCopiesAByteArrayAndAdoptKeepsIt() {
    int body = SILVER.indexOf("body");
    byte[] copied = {1, 2, 3};
    byte[] adopted = {4, 5, 6};
    TableRow set = builder().set("body", copied).build();
    TableRow kept = builder().adopt(body, adopted).build();
    copied[0] = 9;
    adopted[0] = 9;
    assertThat((byte[]) set.valueForWrite(body)).containsExactly(1, 2, 3);
    assertThat((byte[]) kept.valueForWrite(body)).isSameAs(adopted);
  }

  @Test
  void adoptChecksTheColumnsType() {
    assertThatThrownBy(() -> builder().adopt(SILVER.indexOf("body"), "not bytes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column body is BINARY");
    assertThatThrownBy(() -> builder().adopt(SILVER.indexOf("artifact_id"), 7L))
        .hasMessageContaining("column artifact_id is STRING");
  }

  @Test
  void aDecodedRowEqualsTheBuiltOneKeepsItsValuesAndRefusesAnUnsetRequiredColumn() {
    byte[] body = {4, 5, 6};
    TableRow built = builder().adopt(SILVER.indexOf("body"), body).build();
    Object[] values = new Object[SILVER.columns().size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = built.valueForWrite(i);
    }
    TableRow decoded = TableRow.decoded(SILVER, 10, values);
    assertThat(decoded).isEqualTo(built);
    assertThat(decoded.valueForWrite(SILVER.indexOf("body"))).isSameAs(body);
    values[SILVER.indexOf("seq")] = null;
    assertThatThrownBy(() -> TableRow.decoded(SILVER, 10, values))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("column seq must be set");
    assertThatThrownBy(() -> TableRow.decoded(SILVER, 10, new Object[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("row of 3 columns");
  }

  private static TableRow.Builder builder() {
    return TableRow.builder(SILVER, 10)
        .set("artifact_id", "a-1")
        .set("version", 1L);
  }
}
