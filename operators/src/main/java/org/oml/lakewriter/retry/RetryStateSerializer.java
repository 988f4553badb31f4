package org.oml.lakewriter.retry;

import static org.oml.lakewriter.serde.DataIo.readString;
import static org.oml.lakewriter.serde.DataIo.writeString;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.event.ErrorClass;

/** Version 1: error class (by name), message, attempts, first, last and next-attempt times. */
public final class RetryStateSerializer implements SimpleVersionedSerializer<RetryState> {
  public static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(RetryState s) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    writeString(out, s.errorClass().name());
    writeString(out, s.message());
    out.writeInt(s.attempts());
    out.writeLong(s.firstFailureMillis());
    out.writeLong(s.lastFailureMillis());
    out.writeLong(s.nextAttemptMillis());
    return out.getCopyOfBuffer();
  }

  @Override
  public RetryState deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1) {
      throw new IOException("unknown RetryState serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    return new RetryState(
        ErrorClass.valueOf(readString(in)),
        readString(in),
        in.readInt(),
        in.readLong(),
        in.readLong(),
        in.readLong());
  }
}
