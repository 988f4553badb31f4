package org.oml.lakewriter.serde;

import java.util.Objects;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Type information that binds a stream type to its {@link VersionedTypeSerializer}. */
public final class VersionedTypeInfo<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> typeClass;
  private final Class<? extends SimpleVersionedSerializer<T>> serializerClass;

  public VersionedTypeInfo(
      Class<T> typeClass, Class<? extends SimpleVersionedSerializer<T>> serializerClass) {
    this.typeClass = Objects.requireNonNull(typeClass);
    this.serializerClass = Objects.requireNonNull(serializerClass);
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return typeClass;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(ExecutionConfig config) {
    return new VersionedTypeSerializer<>(serializerClass);
  }

  @Override
  public String toString() {
    return "Versioned(" + typeClass.getSimpleName() + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionedTypeInfo
        && ((VersionedTypeInfo<?>) o).typeClass.equals(typeClass)
        && ((VersionedTypeInfo<?>) o).serializerClass.equals(serializerClass);
  }

  @Override
  public int hashCode() {
    return Objects.hash(typeClass, serializerClass);
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof VersionedTypeInfo;
  }
}
