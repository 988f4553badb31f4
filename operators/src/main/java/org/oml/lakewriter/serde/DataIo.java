package org.oml.lakewriter.serde;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Length-prefixed, nullable primitives for our serializers. Strings are UTF-8 with an int length,
 * never {@code writeUTF} and its 64 KB cap.
 */
public final class DataIo {
  private static final int NULL = -1;

  private DataIo() {}

  public static void writeString(DataOutputView out, String s) throws IOException {
    writeBytes(out, s == null ? null : s.getBytes(StandardCharsets.UTF_8));
  }

  public static String readString(DataInputView in) throws IOException {
    byte[] bytes = readBytes(in);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  public static void writeBytes(DataOutputView out, byte[] bytes) throws IOException {
    if (bytes == null) {
      out.writeInt(NULL);
      return;
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  public static byte[] readBytes(DataInputView in) throws IOException {
    int length = in.readInt();
    if (length == NULL) {
      return null;
    }
    if (length < 0) {
      throw new IOException("corrupt length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  public static void writeNullableLong(DataOutputView out, Long v) throws IOException {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v);
    }
  }

  public static Long readNullableLong(DataInputView in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }
}
