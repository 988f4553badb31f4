package org.oml.lakewriter.serde;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;

/** The type information of every stream and state type in the job; none falls back to Kryo. */
public final class StreamTypes {
  public static final TypeInformation<OutboxChange> OUTBOX_CHANGE =
      new VersionedTypeInfo<>(OutboxChange.class, OutboxChangeSerializer.class);
  public static final TypeInformation<OutboxEvent> OUTBOX_EVENT =
      new VersionedTypeInfo<>(OutboxEvent.class, OutboxEventSerializer.class);
  public static final TypeInformation<Batch> BATCH =
      new VersionedTypeInfo<>(Batch.class, BatchSerializer.class);

  private StreamTypes() {}
}
