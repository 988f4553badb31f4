package org.oml.lakewriter.serde;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.oml.lakewriter.event.HorizonUpdate;

/** Version 1 of the horizon update layout. */
public final class HorizonUpdateSerializer implements SimpleVersionedSerializer<HorizonUpdate> {
  public static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(HorizonUpdate update) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    write(out, update);
    return out.getCopyOfBuffer();
  }

  @Override
  public HorizonUpdate deserialize(int version, byte[] serialized) throws IOException {
    return read(new DataInputDeserializer(serialized), version);
  }

  static void write(DataOutputView out, HorizonUpdate u) throws IOException {
    DataIo.writeString(out, u.writerId());
    out.writeLong(u.stableSeq());
    out.writeLong(u.pendingSeq());
    out.writeLong(u.tickedAtMicros());
    out.writeBoolean(u.fromSnapshot());
  }

  static HorizonUpdate read(DataInputView in, int version) throws IOException {
    if (version != 1) {
      throw new IOException("unknown HorizonUpdate serializer version " + version);
    }
    return new HorizonUpdate(
        DataIo.readString(in), in.readLong(), in.readLong(), in.readLong(), in.readBoolean());
  }
}
