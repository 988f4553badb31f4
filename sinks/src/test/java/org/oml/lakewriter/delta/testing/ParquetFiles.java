package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Reads every value of every column of a Parquet file, decompressed, with plain parquet-hadoop (no
 * Delta, no Kernel): what anyone holding the lake's files could read.
 */
public final class ParquetFiles {
  private ParquetFiles() {}

  /** Every {@code .parquet} file under a root, data files and log checkpoints alike. */
  public static List<Path> under(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().toList();
    }
  }

  /** Every other regular file (JSON commits, checksums, _last_checkpoint), for a raw byte scan. */
  public static List<Path> nonParquetUnder(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().endsWith(".parquet"))
          .sorted()
          .toList();
    }
  }

  /** All binary and string values of a file, at any nesting depth, as bytes. */
  public static List<byte[]> binaryValues(Path file) throws IOException {
    List<byte[]> values = new ArrayList<>();
    try (ParquetReader<Group> reader =
        ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
            .build()) {
      for (Group group = reader.read(); group != null; group = reader.read()) {
        collect(group, values);
      }
    }
    return values;
  }

  private static void collect(Group group, List<byte[]> out) {
    GroupType type = group.getType();
    for (int field = 0; field < type.getFieldCount(); field++) {
      Type fieldType = type.getType(field);
      for (int i = 0; i < group.getFieldRepetitionCount(field); i++) {
        if (!fieldType.isPrimitive()) {
          collect(group.getGroup(field, i), out);
        } else if (fieldType.asPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY
            || fieldType.asPrimitiveType().getPrimitiveTypeName()
                == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          out.add(group.getBinary(field, i).getBytes());
        }
      }
    }
  }

  public static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
