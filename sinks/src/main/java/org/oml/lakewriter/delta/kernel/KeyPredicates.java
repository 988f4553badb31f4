package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.expressions.And;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Or;
import io.delta.kernel.expressions.Predicate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.oml.lakewriter.delta.ArtifactKey;

/**
 * The scan filter of a MERGE: {@code (artifact_id = a1 AND version = v1) OR ...}. Kernel turns it
 * into a data-skipping filter on the files' min/max statistics of both columns, which lead the
 * silver schema and are indexed.
 */
final class KeyPredicates {
  private KeyPredicates() {}

  /** Any of the keys; the ORs form a balanced tree, so thousands of keys stay shallow. */
  static Predicate anyOf(Collection<ArtifactKey> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no keys");
    }
    List<Predicate> level = new ArrayList<>(keys.size());
    for (ArtifactKey key : keys) {
      level.add(
          new And(
              new Predicate("=", new Column("artifact_id"), Literal.ofString(key.artifactId())),
              new Predicate("=", new Column("version"), Literal.ofLong(key.version()))));
    }
    while (level.size() > 1) {
      List<Predicate> next = new ArrayList<>((level.size() + 1) / 2);
      for (int i = 0; i < level.size(); i += 2) {
        next.add(i + 1 < level.size() ? new Or(level.get(i), level.get(i + 1)) : level.get(i));
      }
      level = next;
    }
    return level.get(0);
  }
}
