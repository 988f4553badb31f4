package org.oml.lakewriter.identity;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.serde.DataIo;

/** Version 1: system identifier, database, slot, writer id, lake root (length-prefixed UTF-8). */
public final class JobIdentitySerializer implements SimpleVersionedSerializer<JobIdentity> {
  public static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(JobIdentity id) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(128);
    DataIo.writeString(out, id.systemIdentifier());
    DataIo.writeString(out, id.database());
    DataIo.writeString(out, id.slot());
    DataIo.writeString(out, id.writerId());
    DataIo.writeString(out, id.lakeRoot());
    return out.getCopyOfBuffer();
  }

  @Override
  public JobIdentity deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1) {
      throw new IOException("unknown JobIdentity serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    return new JobIdentity(
        DataIo.readString(in),
        DataIo.readString(in),
        DataIo.readString(in),
        DataIo.readString(in),
        DataIo.readString(in));
  }
}
