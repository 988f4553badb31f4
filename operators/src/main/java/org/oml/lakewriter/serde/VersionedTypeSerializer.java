package org.oml.lakewriter.serde;

import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;

/**
 * A Flink {@link TypeSerializer} for our immutable types, backed by a {@link
 * SimpleVersionedSerializer}. Every record is written with the version that wrote it, so bytes
 * stored by an older release are read by the newer serializer's {@code deserialize(version, ..)}:
 * a savepoint taken today restores after tomorrow's upgrade, and Kryo is never involved.
 */
public final class VersionedTypeSerializer<T> extends TypeSerializer<T> {
  private static final long serialVersionUID = 1L;

  private final Class<? extends SimpleVersionedSerializer<T>> serializerClass;
  private transient SimpleVersionedSerializer<T> serializer;

  public VersionedTypeSerializer(Class<? extends SimpleVersionedSerializer<T>> serializerClass) {
    this.serializerClass = Objects.requireNonNull(serializerClass);
  }

  private SimpleVersionedSerializer<T> serializer() {
    if (serializer == null) {
      serializer = InstantiationUtil.instantiate(serializerClass);
    }
    return serializer;
  }

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public TypeSerializer<T> duplicate() {
    return new VersionedTypeSerializer<>(serializerClass);
  }

  @Override
  public T createInstance() {
    return null;
  }

  @Override
  public T copy(T from) {
    return from;
  }

  @Override
  public T copy(T from, T reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    byte[] bytes = serializer().serialize(record);
    target.writeInt(serializer().getVersion());
    target.writeInt(bytes.length);
    target.write(bytes);
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    int version = source.readInt();
    byte[] bytes = new byte[source.readInt()];
    source.readFully(bytes);
    return serializer().deserialize(version, bytes);
  }

  @Override
  public T deserialize(T reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    target.writeInt(source.readInt());
    int length = source.readInt();
    target.writeInt(length);
    target.write(source, length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionedTypeSerializer
        && ((VersionedTypeSerializer<?>) o).serializerClass.equals(serializerClass);
  }

  @Override
  public int hashCode() {
    return serializerClass.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(serializerClass);
  }

  /** Records which versioned serializer wrote the state; the bytes carry their own versions. */
  public static final class Snapshot<T> implements TypeSerializerSnapshot<T> {
    private Class<? extends SimpleVersionedSerializer<T>> serializerClass;

    /** For Flink's reflective restore. */
    public Snapshot() {}

    Snapshot(Class<? extends SimpleVersionedSerializer<T>> serializerClass) {
      this.serializerClass = serializerClass;
    }

    @Override
    public int getCurrentVersion() {
      return 1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      DataIo.writeString(out, serializerClass.getName());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      String name = DataIo.readString(in);
      try {
        serializerClass =
            (Class<? extends SimpleVersionedSerializer<T>>) Class.forName(name, true, classLoader);
      } catch (ClassNotFoundException e) {
        throw new IOException("serializer class of the stored state is gone: " + name, e);
      }
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new VersionedTypeSerializer<>(serializerClass);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializerSnapshot<T> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof Snapshot
          && ((Snapshot<T>) oldSerializerSnapshot).serializerClass.equals(serializerClass)) {
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
      }
      return TypeSerializerSchemaCompatibility.incompatible();
    }
  }
}
