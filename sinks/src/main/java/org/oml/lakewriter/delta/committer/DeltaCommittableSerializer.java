package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.serde.DataIo;

/**
 * The committable's bytes in checkpoints and savepoints.
 *
 * <p>Version 1: {@code frontier, batchEnd (long), table count (int)}, then per table {@code prefix,
 * kind path (string), row count (long), file count (int)}, then per file {@code relative path
 * (string), size, modification time (long), stats JSON (nullable string)}. Strings are
 * length-prefixed UTF-8 ({@link DataIo}); kinds are stored by path, never by ordinal.
 *
 * <p>Version 2 appends, after every version 1 byte: {@code retractsWithoutRow (int)}, then per
 * table in the same order {@code has rewrite (boolean)} and, if it has one, {@code base txn version
 * (long), removed file count (int)} and per removed file the four file fields of version 1.
 *
 * <p>Version 3 appends, after every version 2 byte, per table in the same order {@code first seq
 * (long)}: the lowest seq of the events the table's commit applies ({@link TableCommit#firstSeq}).
 * Tables of version 1 and 2 bytes get {@link TableCommit#UNCHECKED}: their commits are made as that
 * release made them.
 *
 * <p>Each version appends fields and reads them only when {@code version >= N}; version 1 bytes
 * stay readable forever (tests read stored v1, v2 and v3 bytes).
 */
public final class DeltaCommittableSerializer
    implements SimpleVersionedSerializer<DeltaCommittable> {
  public static final int VERSION = 3;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(DeltaCommittable committable) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeLong(committable.frontier());
    out.writeLong(committable.batchEnd());
    out.writeInt(committable.tables().size());
    for (TableCommit table : committable.tables()) {
      DataIo.writeString(out, table.table().prefix());
      DataIo.writeString(out, table.table().kind().path());
      out.writeLong(table.rowCount());
      writeFiles(out, table.files());
    }
    // Version 2.
    out.writeInt(committable.retractsWithoutRow());
    for (TableCommit table : committable.tables()) {
      out.writeBoolean(table.rewrite() != null);
      if (table.rewrite() != null) {
        out.writeLong(table.rewrite().baseTxnVersion());
        writeFiles(out, table.rewrite().removes());
      }
    }
    // Version 3.
    for (TableCommit table : committable.tables()) {
      out.writeLong(table.firstSeq());
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public DeltaCommittable deserialize(int version, byte[] serialized) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException(
          "DeltaCommittable bytes of version " + version + "; this release reads 1.." + VERSION);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    long frontier = in.readLong();
    long batchEnd = in.readLong();
    int tableCount = in.readInt();
    List<TableCommit> tables = new ArrayList<>(tableCount);
    for (int t = 0; t < tableCount; t++) {
      tables.add(readTable(in));
    }
    int retractsWithoutRow = 0;
    if (version >= 2) {
      retractsWithoutRow = in.readInt();
      for (int t = 0; t < tableCount; t++) {
        tables.set(t, withRewrite(in, tables.get(t)));
      }
    }
    if (version >= 3) {
      for (int t = 0; t < tableCount; t++) {
        long firstSeq = in.readLong();
        if (firstSeq < 0) {
          throw new IOException("corrupt first seq " + firstSeq);
        }
        tables.set(t, tables.get(t).withFirstSeq(firstSeq));
      }
    }
    if (in.available() > 0) {
      throw new IOException(
          in.available() + " trailing bytes after a version " + version + " DeltaCommittable");
    }
    return new DeltaCommittable(frontier, batchEnd, tables, retractsWithoutRow);
  }

  private static void writeFiles(DataOutputSerializer out, List<DataFile> files)
      throws IOException {
    out.writeInt(files.size());
    for (DataFile file : files) {
      DataIo.writeString(out, file.relativePath());
      out.writeLong(file.sizeBytes());
      out.writeLong(file.modificationTime());
      DataIo.writeString(out, file.statsJson());
    }
  }

  private static TableCommit readTable(DataInputDeserializer in) throws IOException {
    String prefix = DataIo.readString(in);
    String kindPath = DataIo.readString(in);
    TableKind kind =
        TableKind.fromPath(kindPath)
            .orElseThrow(() -> new IOException("unknown table kind in committable: " + kindPath));
    TableId table = TableId.parse(prefix + "/" + kind.path());
    long rows = in.readLong();
    return new TableCommit(table, rows, readFiles(in));
  }

  private static TableCommit withRewrite(DataInputDeserializer in, TableCommit table)
      throws IOException {
    if (!in.readBoolean()) {
      return table;
    }
    long baseTxnVersion = in.readLong();
    Rewrite rewrite = new Rewrite(baseTxnVersion, readFiles(in));
    return new TableCommit(table.table(), table.rowCount(), table.files(), rewrite);
  }

  private static List<DataFile> readFiles(DataInputDeserializer in) throws IOException {
    int fileCount = in.readInt();
    if (fileCount < 0) {
      throw new IOException("corrupt file count " + fileCount);
    }
    List<DataFile> files = new ArrayList<>(Math.min(fileCount, 1024));
    for (int f = 0; f < fileCount; f++) {
      String path = DataIo.readString(in);
      long size = in.readLong();
      long modificationTime = in.readLong();
      String stats = DataIo.readString(in);
      files.add(new DataFile(path, size, modificationTime, stats));
    }
    return files;
  }
}
