package org.oml.lakewriter.serde;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;

/** The source's output type: a tag byte, then the event or the horizon update. */
public final class OutboxChangeSerializer implements SimpleVersionedSerializer<OutboxChange> {
  public static final int VERSION = 3;

  /**
   * Version N of this layout embeds version N of the event layout ({@link OutboxEventSerializer}):
   * a new event layout is a new version here.
   */
  private static int eventLayout(int version) {
    return version;
  }
  private static final byte EVENT = 1;
  private static final byte HORIZON = 2;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(OutboxChange change) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    if (change instanceof OutboxEvent) {
      out.writeByte(EVENT);
      OutboxEventSerializer.write(out, (OutboxEvent) change);
    } else {
      out.writeByte(HORIZON);
      HorizonUpdateSerializer.write(out, (HorizonUpdate) change);
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public OutboxChange deserialize(int version, byte[] serialized) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException("unknown OutboxChange serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    byte tag = in.readByte();
    switch (tag) {
      case EVENT:
        return OutboxEventSerializer.read(in, eventLayout(version));
      case HORIZON:
        return HorizonUpdateSerializer.read(in, 1);
      default:
        throw new IOException("unknown OutboxChange tag " + tag);
    }
  }
}
