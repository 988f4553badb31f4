package org.oml.lakewriter.cut;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Version 1: frontier, horizon, buffered rows. */
public final class CutProgressSerializer implements SimpleVersionedSerializer<CutProgress> {
  public static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(CutProgress p) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(24);
    out.writeLong(p.frontier());
    out.writeLong(p.horizon());
    out.writeLong(p.bufferedRows());
    return out.getCopyOfBuffer();
  }

  @Override
  public CutProgress deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1) {
      throw new IOException("unknown CutProgress serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    return new CutProgress(in.readLong(), in.readLong(), in.readLong());
  }
}
