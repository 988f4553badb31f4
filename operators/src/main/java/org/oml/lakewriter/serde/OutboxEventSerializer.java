package org.oml.lakewriter.serde;

import static org.oml.lakewriter.serde.DataIo.readBytes;
import static org.oml.lakewriter.serde.DataIo.readNullableLong;
import static org.oml.lakewriter.serde.DataIo.readString;
import static org.oml.lakewriter.serde.DataIo.writeBytes;
import static org.oml.lakewriter.serde.DataIo.writeNullableLong;
import static org.oml.lakewriter.serde.DataIo.writeString;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * The outbox event layout. A new field is appended and read only when {@code version >= N}; the
 * error class is stored by name.
 *
 * <ul>
 *   <li>Version 1: the outbox columns, then the error's class and message.
 *   <li>Version 2: when there is an error, its attempts and first and last failure times follow
 *       (read from version 1 as one attempt at unrecorded times).
 *   <li>Version 3: {@code tx_id} is a nullable long in its place (a NULL column is kept absent,
 *       never written as 0); versions 1 and 2 wrote a plain long, which is read as present.
 * </ul>
 */
public final class OutboxEventSerializer implements SimpleVersionedSerializer<OutboxEvent> {
  public static final int VERSION = 3;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(OutboxEvent event) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    write(out, event);
    return out.getCopyOfBuffer();
  }

  @Override
  public OutboxEvent deserialize(int version, byte[] serialized) throws IOException {
    return read(new DataInputDeserializer(serialized), version);
  }

  public static void write(DataOutputView out, OutboxEvent e) throws IOException {
    out.writeLong(e.seq());
    writeNullableLong(out, e.txId());
    writeString(out, e.tenantId());
    writeString(out, e.kind());
    writeString(out, e.artifactId());
    writeNullableLong(out, e.artifactVersion());
    writeString(out, e.workareaId());
    writeString(out, e.pathAtWrite());
    writeString(out, e.writerIdentity());
    writeString(out, e.principal());
    writeString(out, e.ratifiedBy());
    writeString(out, e.provenanceClass());
    writeString(out, e.plaintextDigest());
    writeString(out, e.ciphertextDigest());
    writeBytes(out, e.body());
    writeString(out, e.dataKeyId());
    writeString(out, e.envelope());
    writeNullableLong(out, e.eventTimeMicros());
    writeNullableLong(out, e.requeueOf());
    RowError error = e.error();
    writeString(out, error == null ? null : error.errorClass().name());
    writeString(out, error == null ? null : error.message());
    if (error != null) {
      out.writeInt(error.attempts());
      out.writeLong(error.firstFailureMicros());
      out.writeLong(error.lastFailureMicros());
    }
  }

  public static OutboxEvent read(DataInputView in, int version) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException("unknown OutboxEvent serializer version " + version);
    }
    OutboxEvent.Builder b =
        OutboxEvent.builder()
            .seq(in.readLong())
            .txId(version >= 3 ? readNullableLong(in) : Long.valueOf(in.readLong()))
            .tenantId(readString(in))
            .kind(readString(in))
            .artifactId(readString(in))
            .artifactVersion(readNullableLong(in))
            .workareaId(readString(in))
            .pathAtWrite(readString(in))
            .writerIdentity(readString(in))
            .principal(readString(in))
            .ratifiedBy(readString(in))
            .provenanceClass(readString(in))
            .plaintextDigest(readString(in))
            .ciphertextDigest(readString(in))
            .body(readBytes(in))
            .dataKeyId(readString(in))
            .envelope(readString(in))
            .eventTimeMicros(readNullableLong(in))
            .requeueOf(readNullableLong(in));
    String errorClass = readString(in);
    String message = readString(in);
    if (errorClass != null) {
      ErrorClass cls = ErrorClass.valueOf(errorClass);
      b.error(
          version >= 2
              ? new RowError(cls, message, in.readInt(), in.readLong(), in.readLong())
              : new RowError(cls, message));
    }
    return b.build();
  }
}
