package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;

/** Every row of every dead-letter table of the lake (tenants' and {@code _invalid}), via Kernel. */
public final class LakeDeadLetters {
  private LakeDeadLetters() {}

  /** The rows with the prefix they were found under (key {@code _prefix}), in table order. */
  public static List<Map<String, Object>> rows(LakeReader lake) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (TableId table : lake.tables()) {
      if (table.kind() == TableKind.DEAD_LETTER) {
        for (Map<String, Object> row : lake.rows(table)) {
          Map<String, Object> copy = new java.util.LinkedHashMap<>(row);
          copy.put("_prefix", table.prefix());
          rows.add(copy);
        }
      }
    }
    return rows;
  }

  /** The seqs of the tenant's bronze table. */
  public static List<Long> bronzeSeqs(LakeReader lake, String tenant) throws IOException {
    return lake.rows(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS)).stream()
        .map(r -> (Long) r.get("seq"))
        .toList();
  }
}
