package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The live data files of one version of a table, by the writer's relative path, each with the add
 * action a remove is built from. Built by one pass over the log ({@code Scan.getScanFiles}), or
 * carried from the version before through the actions of our own commit that made this one, so
 * that planning a rewrite, committing it and looking for small files do not each replay the log
 * again (the steady state's largest log cost: every unit's retractions rewrite files).
 *
 * <p>Immutable. The add actions are copied out of Kernel's columnar batches, so an index does not
 * keep a log replay's batches alive. An add action with a deletion vector is kept without its
 * action: this writer never rewrites such a file ({@code candidate} refuses it, compaction skips
 * it), so it never removes one.
 */
final class LiveFileIndex {
  /** A live data file: where it is, its size and statistics, and its add action (see above). */
  record Entry(
      String relativePath,
      long size,
      long modificationTime,
      Optional<String> statsJson,
      boolean hasDeletionVector,
      Row add) {

    /** The remove action of this file; never asked of a file with a deletion vector. */
    Row toRemoveFileRow(boolean dataChange, long deletionTimestamp) {
      if (add == null) {
        throw new IllegalStateException(
            relativePath + " has a deletion vector: this writer does not remove such a file");
      }
      return new AddFile(add).toRemoveFileRow(dataChange, Optional.of(deletionTimestamp));
    }
  }

  /** No live file: a table before its first commit. */
  static final LiveFileIndex NONE = new LiveFileIndex(Map.of());

  private final Map<String, Entry> files;

  private LiveFileIndex(Map<String, Entry> files) {
    this.files = files;
  }

  /** Collects the entries of one pass over a version's scan files. */
  static final class Builder {
    private final Map<String, Entry> files = new LinkedHashMap<>();

    Builder add(String relativePath, Row add) {
      files.put(relativePath, entry(relativePath, add));
      return this;
    }

    LiveFileIndex build() {
      return new LiveFileIndex(files);
    }
  }

  /** The entry of the file at {@code relativePath} whose add action is {@code add}. */
  static Entry entry(String relativePath, Row add) {
    AddFile action = new AddFile(add);
    boolean dv = action.getDeletionVector().isPresent();
    return new Entry(
        relativePath,
        action.getSize(),
        action.getModificationTime(),
        action.getStatsJson(),
        dv,
        dv ? null : detach(add));
  }

  /** The file at {@code relativePath}, if it is live in this version. */
  Entry get(String relativePath) {
    return files.get(relativePath);
  }

  /** Every live file, in the order the log listed them (then in the order they were added). */
  Collection<Entry> entries() {
    return Collections.unmodifiableCollection(files.values());
  }

  /**
   * The next version's index: this one without {@code removed} (relative paths) and with {@code
   * added}; empty if a removed file is not live here, since then this index is not the version the
   * commit was made on.
   */
  Optional<LiveFileIndex> after(Collection<String> removed, Collection<Entry> added) {
    Map<String, Entry> next = new LinkedHashMap<>(files);
    for (String path : removed) {
      if (next.remove(path) == null) {
        return Optional.empty();
      }
    }
    for (Entry entry : added) {
      next.put(entry.relativePath(), entry);
    }
    return Optional.of(new LiveFileIndex(next));
  }

  /**
   * A copy of an add action that holds no reference to the batch it was read from: its strings,
   * numbers and flags, and its string maps (partition values, tags) copied.
   */
  private static Row detach(Row add) {
    StructType schema = add.getSchema();
    Map<Integer, Object> values = new HashMap<>();
    for (int i = 0; i < schema.length(); i++) {
      if (add.isNullAt(i)) {
        continue;
      }
      DataType type = schema.at(i).getDataType();
      Object value;
      if (type instanceof StringType) {
        value = add.getString(i);
      } else if (type instanceof LongType) {
        value = add.getLong(i);
      } else if (type instanceof IntegerType) {
        value = add.getInt(i);
      } else if (type instanceof BooleanType) {
        value = add.getBoolean(i);
      } else if (type instanceof MapType) {
        MapValue map = add.getMap(i);
        value = VectorUtils.stringStringMapValue(VectorUtils.<String, String>toJavaMap(map));
      } else {
        throw new IllegalStateException(
            "add action field " + schema.at(i).getName() + " of type " + type + " is not copied");
      }
      values.put(i, value);
    }
    return new GenericRow(schema, values);
  }
}
