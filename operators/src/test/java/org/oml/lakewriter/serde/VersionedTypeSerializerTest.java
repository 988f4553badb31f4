package org.oml.lakewriter.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.cut.CutProgress;
import org.oml.lakewriter.cut.CutProgressSerializer;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.testing.SerdeChecks;

class VersionedTypeSerializerTest {
  private static final ClassLoader LOADER = VersionedTypeSerializerTest.class.getClassLoader();

  static final HorizonUpdate STORED_V1_RECORD = new HorizonUpdate("w1", 9, 10, 11, false);

  /** {@link #STORED_V1_RECORD} as the type serializer frames it: version, length, payload. */
  static final String STORED_V1_RECORD_HEX =
      """
      000000010000001f0000000277310000000000000009000000000000000a0000
      00000000000b00
      """;

  /**
   * What a savepoint holds for the cut's state serializer: {@code writeVersionedSnapshot} of the
   * snapshot for {@link CutProgressSerializer}. Renaming the snapshot class or the serializer class
   * breaks this.
   */
  static final String STORED_V1_SNAPSHOT_HEX =
      """
      00396f72672e6f6d6c2e6c616b657772697465722e73657264652e5665727369
      6f6e65645479706553657269616c697a657224536e617073686f740000000100
      00002c6f72672e6f6d6c2e6c616b657772697465722e6375742e43757450726f
      677265737353657269616c697a6572
      """;

  private final VersionedTypeSerializer<HorizonUpdate> horizon =
      new VersionedTypeSerializer<>(HorizonUpdateSerializer.class);

  @Test
  void framesEachRecordWithItsVersionAndLength() throws IOException {
    byte[] payload = new HorizonUpdateSerializer().serialize(STORED_V1_RECORD);

    DataInputDeserializer in =
        new DataInputDeserializer(
            SerdeChecks.framed(HorizonUpdateSerializer.class, STORED_V1_RECORD));

    assertThat(in.readInt()).isEqualTo(HorizonUpdateSerializer.VERSION);
    assertThat(in.readInt()).isEqualTo(payload.length);
    byte[] rest = new byte[payload.length];
    in.readFully(rest);
    assertThat(rest).isEqualTo(payload);
    assertThat(in.available()).isZero();
  }

  @Test
  void readsARecordStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_RECORD_HEX);

    assertThat(SerdeChecks.readFramed(HorizonUpdateSerializer.class, stored))
        .isEqualTo(STORED_V1_RECORD);
    assertThat(SerdeChecks.framed(HorizonUpdateSerializer.class, STORED_V1_RECORD))
        .isEqualTo(stored);
  }

  @Test
  void refusesARecordOfAnUnknownVersion() throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(16);
    out.writeInt(2);
    out.writeInt(0);

    assertThatThrownBy(() -> horizon.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void copyMovesOneRecordByteForByte() throws IOException {
    HorizonUpdate first = new HorizonUpdate("w1", 1, 2, 3, false);
    HorizonUpdate second = new HorizonUpdate("w2", 4, 5, 6, true);
    DataOutputSerializer both = new DataOutputSerializer(128);
    horizon.serialize(first, both);
    horizon.serialize(second, both);
    DataInputDeserializer source = new DataInputDeserializer(both.getCopyOfBuffer());
    DataOutputSerializer target = new DataOutputSerializer(64);

    horizon.copy(source, target);

    assertThat(target.getCopyOfBuffer())
        .isEqualTo(SerdeChecks.framed(HorizonUpdateSerializer.class, first));
    assertThat(horizon.deserialize(source))
        .as("the source stops at the next record")
        .isEqualTo(second);
  }

  @Test
  void treatsRecordsAsImmutable() {
    HorizonUpdate update = new HorizonUpdate("w1", 1, 2, 3, false);

    assertThat(horizon.isImmutableType()).isTrue();
    assertThat(horizon.copy(update)).isSameAs(update);
    assertThat(horizon.copy(update, null)).isSameAs(update);
    assertThat(horizon.getLength()).isEqualTo(-1);
  }

  @Test
  void equalsBySerializerClass() {
    assertThat(horizon.duplicate()).isEqualTo(horizon).hasSameHashCodeAs(horizon);
    assertThat(horizon).isNotEqualTo(new VersionedTypeSerializer<>(CutProgressSerializer.class));
  }

  @Test
  void survivesJavaSerializationInTheJobGraph() throws Exception {
    VersionedTypeSerializer<HorizonUpdate> shipped = InstantiationUtil.clone(horizon, LOADER);
    HorizonUpdate update = new HorizonUpdate("w1", 4, 5, 6, true);

    assertThat(shipped).isEqualTo(horizon);
    DataOutputSerializer out = new DataOutputSerializer(64);
    shipped.serialize(update, out);
    assertThat(horizon.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
        .isEqualTo(update);
  }

  @Test
  void streamTypesNeverFallBackToKryo() {
    SerializerConfigImpl config = new SerializerConfigImpl();

    assertThat(StreamTypes.OUTBOX_CHANGE.createSerializer(config))
        .isEqualTo(new VersionedTypeSerializer<>(OutboxChangeSerializer.class));
    assertThat(StreamTypes.OUTBOX_EVENT.createSerializer(config))
        .isEqualTo(new VersionedTypeSerializer<>(OutboxEventSerializer.class));
    assertThat(StreamTypes.BATCH.createSerializer(config))
        .isEqualTo(new VersionedTypeSerializer<>(BatchSerializer.class));
  }

  @Test
  void snapshotWritesAndReadsItsSerializerClass() throws IOException {
    TypeSerializer<CutProgress> original =
        new VersionedTypeSerializer<>(CutProgressSerializer.class);
    DataOutputSerializer out = new DataOutputSerializer(128);
    original.snapshotConfiguration().writeSnapshot(out);

    VersionedTypeSerializer.Snapshot<CutProgress> read = new VersionedTypeSerializer.Snapshot<>();
    read.readSnapshot(1, new DataInputDeserializer(out.getCopyOfBuffer()), LOADER);

    assertThat(read.getCurrentVersion()).isEqualTo(1);
    assertThat(read.restoreSerializer()).isEqualTo(original);
  }

  @Test
  void versionedSnapshotRoundTrips() throws IOException {
    TypeSerializer<CutProgress> original =
        new VersionedTypeSerializer<>(CutProgressSerializer.class);

    TypeSerializerSnapshot<CutProgress> restored = restoreSnapshot(writeSnapshot(original));

    assertThat(restored).isInstanceOf(VersionedTypeSerializer.Snapshot.class);
    assertThat(restored.restoreSerializer()).isEqualTo(original);
    assertThat(
            original
                .snapshotConfiguration()
                .resolveSchemaCompatibility(restored)
                .isCompatibleAsIs())
        .isTrue();
  }

  @Test
  void readsASnapshotStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_SNAPSHOT_HEX);
    TypeSerializer<CutProgress> current =
        new VersionedTypeSerializer<>(CutProgressSerializer.class);

    TypeSerializerSnapshot<CutProgress> restored = restoreSnapshot(stored);

    assertThat(restored.restoreSerializer()).isEqualTo(current);
    assertThat(
            current.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs())
        .isTrue();
    assertThat(writeSnapshot(current)).isEqualTo(stored);
  }

  @Test
  void isIncompatibleWithAnotherSerializerClass() throws IOException {
    @SuppressWarnings({"unchecked", "rawtypes"})
    TypeSerializerSnapshot<HorizonUpdate> oldOfOtherClass =
        (TypeSerializerSnapshot)
            restoreSnapshot(
                writeSnapshot(new VersionedTypeSerializer<>(CutProgressSerializer.class)));

    TypeSerializerSchemaCompatibility<HorizonUpdate> compatibility =
        horizon.snapshotConfiguration().resolveSchemaCompatibility(oldOfOtherClass);

    assertThat(compatibility.isIncompatible()).isTrue();
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void isIncompatibleWithAForeignSnapshot() {
    TypeSerializerSnapshot<HorizonUpdate> kryoOrOther =
        (TypeSerializerSnapshot) LongSerializer.INSTANCE.snapshotConfiguration();

    assertThat(
            horizon
                .snapshotConfiguration()
                .resolveSchemaCompatibility(kryoOrOther)
                .isIncompatible())
        .isTrue();
  }

  @Test
  void aSnapshotOfAVanishedClassFailsWithIoException() throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    DataIo.writeString(out, "org.oml.lakewriter.serde.GoneSerializer");
    VersionedTypeSerializer.Snapshot<Object> snapshot = new VersionedTypeSerializer.Snapshot<>();

    assertThatThrownBy(
            () ->
                snapshot.readSnapshot(1, new DataInputDeserializer(out.getCopyOfBuffer()), LOADER))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("GoneSerializer");
  }

  static byte[] writeSnapshot(TypeSerializer<?> serializer) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(128);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
    return out.getCopyOfBuffer();
  }

  static <T> TypeSerializerSnapshot<T> restoreSnapshot(byte[] bytes) throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    TypeSerializerSnapshot<T> snapshot = TypeSerializerSnapshot.readVersionedSnapshot(in, LOADER);
    assertThat(in.available()).as("bytes left after the snapshot").isZero();
    return snapshot;
  }
}
