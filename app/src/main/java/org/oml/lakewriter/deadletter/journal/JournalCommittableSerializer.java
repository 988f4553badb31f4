package org.oml.lakewriter.deadletter.journal;

import static org.oml.lakewriter.serde.DataIo.readNullableLong;
import static org.oml.lakewriter.serde.DataIo.readString;
import static org.oml.lakewriter.serde.DataIo.writeNullableLong;
import static org.oml.lakewriter.serde.DataIo.writeString;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The journal committable's bytes in checkpoints and savepoints.
 *
 * <p>Version 1: {@code record count (int)}, then per record, in this order: {@code seq (long),
 * writer id, tenant id, kind, error class, message (strings), attempts (int), first and last
 * failure time (long, micros), tx id (long), artifact id (string), artifact version (nullable
 * long), workarea id, path at write, writer identity, principal, ratified by, provenance class,
 * plaintext digest, ciphertext digest, body sha256 (strings), body bytes (nullable long), data key
 * id, envelope (strings), event time, requeue of (nullable longs)}. Strings are length-prefixed
 * UTF-8 and may be null ({@link org.oml.lakewriter.serde.DataIo}). There is no body field.
 *
 * <p>Version 2: the tx id is a nullable long in its place (an outbox row whose {@code tx_id} is
 * NULL is journalled with NULL, never 0); version 1's plain long is read as present.
 *
 * <p>A later version appends fields and reads them only when {@code version >= N}; version 1 bytes
 * stay readable (a test reads stored v1 bytes).
 */
public final class JournalCommittableSerializer
    implements SimpleVersionedSerializer<JournalCommittable> {
  public static final int VERSION = 2;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(JournalCommittable committable) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeInt(committable.records().size());
    for (DeadLetterRecord r : committable.records()) {
      out.writeLong(r.seq());
      writeString(out, r.writerId());
      writeString(out, r.tenantId());
      writeString(out, r.kind());
      writeString(out, r.errorClass());
      writeString(out, r.message());
      out.writeInt(r.attempts());
      out.writeLong(r.firstFailureMicros());
      out.writeLong(r.lastFailureMicros());
      writeNullableLong(out, r.txId());
      writeString(out, r.artifactId());
      writeNullableLong(out, r.artifactVersion());
      writeString(out, r.workareaId());
      writeString(out, r.pathAtWrite());
      writeString(out, r.writerIdentity());
      writeString(out, r.principal());
      writeString(out, r.ratifiedBy());
      writeString(out, r.provenanceClass());
      writeString(out, r.plaintextDigest());
      writeString(out, r.ciphertextDigest());
      writeString(out, r.bodySha256());
      writeNullableLong(out, r.bodyBytes());
      writeString(out, r.dataKeyId());
      writeString(out, r.envelope());
      writeNullableLong(out, r.eventTimeMicros());
      writeNullableLong(out, r.requeueOf());
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public JournalCommittable deserialize(int version, byte[] serialized) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException(
          "JournalCommittable bytes of version " + version + "; this release reads 1.." + VERSION);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    int count = in.readInt();
    if (count < 0) {
      throw new IOException("negative record count " + count);
    }
    List<DeadLetterRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      records.add(
          new DeadLetterRecord(
              in.readLong(),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              in.readInt(),
              in.readLong(),
              in.readLong(),
              version >= 2 ? readNullableLong(in) : Long.valueOf(in.readLong()),
              readString(in),
              readNullableLong(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              readNullableLong(in),
              readString(in),
              readString(in),
              readNullableLong(in),
              readNullableLong(in)));
    }
    if (in.available() > 0) {
      throw new IOException(
          in.available() + " trailing bytes after a version " + version + " JournalCommittable");
    }
    return new JournalCommittable(records);
  }
}
