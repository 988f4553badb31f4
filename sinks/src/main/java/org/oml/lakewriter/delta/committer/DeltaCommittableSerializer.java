package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.delta.DataFile;
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
 * <p>A later version appends fields and reads them only when {@code version >= N}; version 1 bytes
 * stay readable forever (a test reads stored v1 bytes).
 */
public final class DeltaCommittableSerializer
    implements SimpleVersionedSerializer<DeltaCommittable> {
  public static final int VERSION = 1;

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
      out.writeInt(table.files().size());
      for (DataFile file : table.files()) {
        DataIo.writeString(out, file.relativePath());
        out.writeLong(file.sizeBytes());
        out.writeLong(file.modificationTime());
        DataIo.writeString(out, file.statsJson());
      }
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
    if (in.available() > 0) {
      throw new IOException(
          in.available() + " trailing bytes after a version " + version + " DeltaCommittable");
    }
    return new DeltaCommittable(frontier, batchEnd, tables);
  }

  private static TableCommit readTable(DataInputDeserializer in) throws IOException {
    String prefix = DataIo.readString(in);
    String kindPath = DataIo.readString(in);
    TableKind kind =
        TableKind.fromPath(kindPath)
            .orElseThrow(() -> new IOException("unknown table kind in committable: " + kindPath));
    TableId table = TableId.parse(prefix + "/" + kind.path());
    long rows = in.readLong();
    int fileCount = in.readInt();
    List<DataFile> files = new ArrayList<>(fileCount);
    for (int f = 0; f < fileCount; f++) {
      String path = DataIo.readString(in);
      long size = in.readLong();
      long modificationTime = in.readLong();
      String stats = DataIo.readString(in);
      files.add(new DataFile(path, size, modificationTime, stats));
    }
    return new TableCommit(table, rows, files);
  }
}
