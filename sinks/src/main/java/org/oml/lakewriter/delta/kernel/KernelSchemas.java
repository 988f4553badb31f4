package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.ColumnType;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableUnusableException;

/**
 * Translates {@link LakeSchemas} into Kernel types and table properties. A table created from here
 * and a table compared against here agree column for column, or the table is refused.
 */
final class KernelSchemas {
  /** The table property of the log checkpoint interval (Delta's default is 10 commits). */
  static final String CHECKPOINT_INTERVAL = "delta.checkpointInterval";

  /*
   * Built once per kind: Kernel's StructType constructor walks every field (its nested-metadata
   * check), which cost a writer at 512 tenants several per cent of its CPU when every table's
   * write and setup built the schema again. StructType is immutable.
   */
  private static final Map<TableKind, StructType> STRUCTS = structs(false);
  private static final Map<TableKind, StructType> RAW_STRUCTS = structs(true);

  private KernelSchemas() {}

  static StructType structOf(TableKind kind) {
    return STRUCTS.get(kind);
  }

  /**
   * {@link #structOf} with every string column read as binary: its UTF-8 bytes as stored, for a
   * reader that decodes them itself ({@link ParquetRows}).
   */
  static StructType rawStructOf(TableKind kind) {
    return RAW_STRUCTS.get(kind);
  }

  private static Map<TableKind, StructType> structs(boolean stringsAsBinary) {
    Map<TableKind, StructType> structs = new EnumMap<>(TableKind.class);
    for (TableKind kind : TableKind.values()) {
      structs.put(kind, struct(kind, stringsAsBinary));
    }
    return structs;
  }

  private static StructType struct(TableKind kind, boolean stringsAsBinary) {
    StructType struct = new StructType();
    for (LakeSchemas.Column column : LakeSchemas.of(kind).columns()) {
      DataType type =
          stringsAsBinary && column.type() == ColumnType.STRING
              ? BinaryType.BINARY
              : typeOf(column.type());
      struct = struct.add(column.name(), type, column.nullable());
    }
    return struct;
  }

  /**
   * The properties a table is created with: its indexed columns, and a log checkpoint (Kernel
   * returns the hook) every {@code checkpointInterval} commits.
   */
  static Map<String, String> tableProperties(TableKind kind, int checkpointInterval) {
    TableSchema schema = LakeSchemas.of(kind);
    return Map.of(
        "delta.dataSkippingNumIndexedCols",
        Integer.toString(schema.indexedColumns()),
        CHECKPOINT_INTERVAL,
        Integer.toString(checkpointInterval));
  }

  /** Same column names, types and nullability in the same order; field metadata is ignored. */
  static boolean sameColumns(StructType expected, StructType actual) {
    List<StructField> a = expected.fields();
    List<StructField> b = actual.fields();
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).getName().equals(b.get(i).getName())
          || !a.get(i).getDataType().equivalent(b.get(i).getDataType())
          || a.get(i).isNullable() != b.get(i).isNullable()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Refuses a table in which a copy of a file's rows would not be the same rows, or whose rewrite
   * Kernel would reject: column mapping (physical names differ from ours), append-only, change data
   * feed (Kernel cannot write a commit that mixes adds and removes with it).
   */
  static void requireRewritable(TableId table, Map<String, String> properties) {
    String mapping = properties.getOrDefault("delta.columnMapping.mode", "none");
    String appendOnly = properties.get("delta.appendOnly");
    String changeFeed = properties.get("delta.enableChangeDataFeed");
    if (!mapping.equalsIgnoreCase("none")
        || "true".equalsIgnoreCase(appendOnly)
        || "true".equalsIgnoreCase(changeFeed)) {
      throw new TableUnusableException(
          table,
          "cannot be rewritten by a MERGE (delta.columnMapping.mode="
              + mapping
              + ", delta.appendOnly="
              + appendOnly
              + ", delta.enableChangeDataFeed="
              + changeFeed
              + "); unset those table properties",
          null);
    }
  }

  /**
   * The table property that lets Delta engines expire txn actions: an appId whose last txn action
   * is older than the duration is dropped when the engine writes a checkpoint (Delta Spark) or a
   * {@code .crc} checksum (Kernel 4.4.0 too). Kernel 4.4.0 does not let a writer set it.
   */
  static final String TXN_RETENTION = "delta.setTransactionRetentionDuration";

  /**
   * Refuses a table on which the writer's txn version can vanish: one that sets {@link
   * #TXN_RETENTION} (under any spelling of its case, as some engines store keys as given). Once a
   * checkpoint without our txn action replaces the commit files, the table reads as never written
   * by this writer, and every batch already in it looks new: a replay after a restore would commit
   * its rows twice. Exactly-once needs the txn version for the table's whole life, so there is no
   * safe duration. The writer's own tables never set the property ({@link #tableProperties}).
   */
  static void requireTxnNeverExpires(TableId table, Map<String, String> properties) {
    for (Map.Entry<String, String> property : properties.entrySet()) {
      if (property.getKey().equalsIgnoreCase(TXN_RETENTION)) {
        throw new TableUnusableException(
            table,
            "sets "
                + property.getKey()
                + "="
                + property.getValue()
                + ": Delta engines that honour it drop the txn action of an appId idle for that"
                + " long (Delta Spark from its checkpoints, Delta Kernel from its .crc files), and"
                + " without its txn(oml-lakewriter) version this writer cannot tell which batches"
                + " the table already holds, so a replay could commit rows twice. Unset the"
                + " property (ALTER TABLE ... UNSET TBLPROPERTIES ('"
                + TXN_RETENTION
                + "')) before the writer uses the table; see docs/kernel-conformance.md",
            null);
      }
    }
  }

  static DataType typeOf(ColumnType type) {
    return switch (type) {
      case STRING -> StringType.STRING;
      case LONG -> LongType.LONG;
      case INT -> IntegerType.INTEGER;
      case TIMESTAMP -> TimestampType.TIMESTAMP;
      case BINARY -> BinaryType.BINARY;
    };
  }
}
