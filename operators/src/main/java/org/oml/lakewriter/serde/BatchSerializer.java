package org.oml.lakewriter.serde;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/** The batch layout: the bounds, then the rows in seq order. */
public final class BatchSerializer implements SimpleVersionedSerializer<Batch> {
  public static final int VERSION = 3;

  /**
   * Version N of this layout embeds version N of the event layout ({@link OutboxEventSerializer}):
   * a new event layout is a new version here.
   */
  private static int eventLayout(int version) {
    return version;
  }

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(Batch batch) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    out.writeLong(batch.frontier());
    out.writeLong(batch.batchEnd());
    out.writeInt(batch.events().size());
    for (OutboxEvent event : batch.events()) {
      OutboxEventSerializer.write(out, event);
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public Batch deserialize(int version, byte[] serialized) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException("unknown Batch serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    long frontier = in.readLong();
    long batchEnd = in.readLong();
    int size = in.readInt();
    List<OutboxEvent> events = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      events.add(OutboxEventSerializer.read(in, eventLayout(version)));
    }
    return new Batch(frontier, batchEnd, events);
  }
}
