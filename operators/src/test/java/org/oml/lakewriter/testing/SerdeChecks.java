package org.oml.lakewriter.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.oml.lakewriter.serde.VersionedTypeSerializer;

/** Round trips through a serializer directly and through the Flink type serializer over it. */
public final class SerdeChecks {
  /** Written after a record, so that reading too much or too little shows. */
  private static final int SENTINEL = 0x0CAFEBAB;

  private SerdeChecks() {}

  public static <T> T direct(SimpleVersionedSerializer<T> serializer, T value) throws IOException {
    byte[] bytes = serializer.serialize(value);
    return serializer.deserialize(serializer.getVersion(), bytes);
  }

  /**
   * Through {@link VersionedTypeSerializer}: serialize, copy the bytes view to view, and read the
   * copy back. The copy must be byte-identical and the reader must stop at the record's end.
   */
  public static <T> T typed(Class<? extends SimpleVersionedSerializer<T>> serializerClass, T value)
      throws IOException {
    VersionedTypeSerializer<T> typeSerializer = new VersionedTypeSerializer<>(serializerClass);
    byte[] written = framed(serializerClass, value);

    DataOutputSerializer copied = new DataOutputSerializer(written.length);
    typeSerializer.duplicate().copy(new DataInputDeserializer(written), copied);
    assertThat(copied.getCopyOfBuffer()).isEqualTo(written);

    DataOutputSerializer withSentinel = new DataOutputSerializer(written.length + 4);
    withSentinel.write(written);
    withSentinel.writeInt(SENTINEL);
    DataInputDeserializer in = new DataInputDeserializer(withSentinel.getCopyOfBuffer());
    T back = typeSerializer.deserialize(in);
    assertThat(in.readInt()).as("bytes after the record").isEqualTo(SENTINEL);
    return back;
  }

  /** The bytes {@link VersionedTypeSerializer} writes: version, length, payload. */
  public static <T> byte[] framed(
      Class<? extends SimpleVersionedSerializer<T>> serializerClass, T value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    new VersionedTypeSerializer<>(serializerClass).serialize(value, out);
    return out.getCopyOfBuffer();
  }

  public static <T> T readFramed(
      Class<? extends SimpleVersionedSerializer<T>> serializerClass, byte[] bytes)
      throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    T value = new VersionedTypeSerializer<>(serializerClass).deserialize(in);
    assertThat(in.available()).as("bytes left after the record").isZero();
    return value;
  }
}
