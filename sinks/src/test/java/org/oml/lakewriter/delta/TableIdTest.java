package org.oml.lakewriter.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
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

  /** The character check agrees with the pattern the event validator names in its errors. */
  @Test
  void theCharacterCheckIsThePattern() {
    Pattern pattern = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
    char[] alphabet = {'a', 'z', '0', '9', '_', '-', 'A', '/', '.', ' ', '`', '{', ':', '\u00e9'};
    List<String> candidates = new ArrayList<>(List.of(""));
    for (int length = 1; length <= 3; length++) {
      List<String> longer = new ArrayList<>();
      for (String s : candidates) {
        if (s.length() == length - 1) {
          for (char c : alphabet) {
            longer.add(s + c);
          }
        }
      }
      candidates.addAll(longer);
    }
    Random random = new Random(7);
    for (int i = 0; i < 2_000; i++) {
      StringBuilder s = new StringBuilder();
      int length = 55 + random.nextInt(15);
      for (int j = 0; j < length; j++) {
        s.append(alphabet[random.nextInt(random.nextInt(10) == 0 ? alphabet.length : 6)]);
      }
      candidates.add(s.toString());
    }
    for (String s : candidates) {
      assertThat(TableId.isValidTenant(s)).as(s).isEqualTo(pattern.matcher(s).matches());
    }
  }

  @Test
  void ordersByRelativePath() {
    TableId a = TableId.of("a", TableKind.DEAD_LETTER);
    TableId ab = TableId.of("a-b", TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(a.relativePath().compareTo(ab.relativePath())).isPositive();
    assertThat(a.compareTo(ab)).isPositive();
    assertThat(ab.compareTo(a)).isNegative();
    assertThat(a.compareTo(TableId.of("a", TableKind.DEAD_LETTER))).isZero();
    assertThat(a.hashCode()).isEqualTo(TableId.of("a", TableKind.DEAD_LETTER).hashCode());
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
