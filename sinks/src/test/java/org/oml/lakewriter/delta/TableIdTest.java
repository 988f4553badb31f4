package org.oml.lakewriter.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableIdTest {
  @Test
  void tenantIdsThatCannotLeaveTheirPrefix() {
    assertThat(TableId.isValidTenant("acme")).isTrue();
    assertThat(TableId.isValidTenant("a")).isTrue();
    assertThat(TableId.isValidTenant("0-a_b")).isTrue();
    assertThat(TableId.isValidTenant("a".repeat(63))).isTrue();
    assertThat(TableId.isValidTenant("a".repeat(64))).isFalse();
    for (String bad : new String[] {null, "", "_invalid", "-a", "A", "a/b", "..", "a.b", "a b"}) {
      assertThat(TableId.isValidTenant(bad)).as(bad).isFalse();
    }
    assertThatThrownBy(() -> TableId.of("../x", TableKind.DEAD_LETTER))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void parsesItsOwnPaths() {
    for (TableKind kind : TableKind.values()) {
      TableId id = TableId.of("acme", kind);
      assertThat(TableId.parse(id.relativePath())).isEqualTo(id);
    }
    assertThat(TableId.parse("_invalid/dead_letter")).isEqualTo(TableId.invalidTenantDeadLetter());
    assertThatThrownBy(() -> TableId.parse("_invalid/silver/memories"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
