package org.oml.lakewriter.delta.merge;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CheckedOutputStream;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys of a keyed table's data files, kept on local disk between runs ({@code
 * sink.key-cache.dir}, by default {@code <state.dir>/key-cache}), so that a restart builds its key
 * index from this copy instead of reading the key columns of every live file of every table (stop
 * 55: most of the writer's first minute after a restart at 512 tenants).
 *
 * <p>A data file never changes once written and its path is never reused, so the keys recorded for
 * a path stay true for as long as that path is live. The index takes from here only the files that
 * are live in the table's snapshot, and reads every other live file as before: a file written or
 * rewritten since the copy was saved costs a read, a file removed since is ignored. The copy is
 * never the authority: a file that cannot be read back whole (torn by a crash, another table's,
 * another format) is ignored with a {@code KEY_CACHE_UNREADABLE} warning, and the index reads the
 * table's files as if there were none.
 *
 * <p>One file per table, {@code <dir>/<the table's relative path>.keys}, written to a temporary
 * file and moved into place: magic, format, the table's path, then per data file its path and
 * keys, then a CRC-32 of all that.
 */
public final class KeyCache {
  private static final Logger LOG = LoggerFactory.getLogger(KeyCache.class);
  private static final int MAGIC = 0x4F4D4C4B; // "OMLK"
  private static final int FORMAT = 1;

  /** No copy kept: every start reads the tables' key columns. */
  public static final KeyCache NONE = new KeyCache(null);

  private final Path dir;

  private KeyCache(Path dir) {
    this.dir = dir;
  }

  /** A cache in {@code dir} (created when first written); {@link #NONE} if {@code dir} is null. */
  public static KeyCache in(String dir) {
    return dir == null || dir.isBlank() ? NONE : new KeyCache(Path.of(dir));
  }

  boolean enabled() {
    return dir != null;
  }

  Path fileOf(TableId table) {
    return dir.resolve(table.relativePath() + ".keys");
  }

  /**
   * The saved keys of the table's data files, by path relative to the table root; empty if none
   * were saved or the copy cannot be read back whole.
   */
  Map<String, List<ArtifactKey>> read(TableId table) {
    if (dir == null) {
      return Map.of();
    }
    Path file = fileOf(table);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException | UncheckedIOException e) {
      return unreadable(table, file, e.toString());
    }
    if (bytes.length < Long.BYTES) {
      return unreadable(table, file, "shorter than its checksum");
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    if (ByteBuffer.wrap(bytes, bytes.length - Long.BYTES, Long.BYTES).getLong() != crc.getValue()) {
      return unreadable(table, file, "checksum mismatch");
    }
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, 0, bytes.length - Long.BYTES))) {
      if (in.readInt() != MAGIC || in.readInt() != FORMAT) {
        return unreadable(table, file, "not a key cache file of format " + FORMAT);
      }
      String path = in.readUTF();
      if (!path.equals(table.relativePath())) {
        return unreadable(table, file, "it holds the keys of table " + path);
      }
      int files = in.readInt();
      Map<String, List<ArtifactKey>> keys = new HashMap<>(Math.max(16, files * 2));
      for (int f = 0; f < files; f++) {
        String dataFile = in.readUTF();
        int count = in.readInt();
        List<ArtifactKey> inFile = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
          inFile.add(new ArtifactKey(in.readUTF(), in.readLong()));
        }
        keys.put(dataFile, inFile);
      }
      if (in.available() != 0) {
        return unreadable(table, file, in.available() + " bytes after the last file");
      }
      return keys;
    } catch (IOException | RuntimeException e) {
      return unreadable(table, file, e.toString());
    }
  }

  private static Map<String, List<ArtifactKey>> unreadable(TableId table, Path file, String why) {
    LOG.warn(
        "KEY_CACHE_UNREADABLE {}: the saved keys in {} are not used ({}); the key index reads"
            + " the table's files",
        table,
        file,
        why);
    return Map.of();
  }

  /**
   * Saves the keys of the table's data files (path relative to the table root, to the keys of the
   * rows that file holds), replacing the copy saved before.
   */
  void write(TableId table, Map<String, List<ArtifactKey>> keysByFile) throws IOException {
    if (dir == null) {
      return;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + keysByFile.size() * 64);
    CRC32 crc = new CRC32();
    try (DataOutputStream out = new DataOutputStream(new CheckedOutputStream(bytes, crc))) {
      out.writeInt(MAGIC);
      out.writeInt(FORMAT);
      out.writeUTF(table.relativePath());
      out.writeInt(keysByFile.size());
      for (Map.Entry<String, List<ArtifactKey>> file : keysByFile.entrySet()) {
        out.writeUTF(file.getKey());
        out.writeInt(file.getValue().size());
        for (ArtifactKey key : file.getValue()) {
          out.writeUTF(key.artifactId());
          out.writeLong(key.version());
        }
      }
    }
    new DataOutputStream(bytes).writeLong(crc.getValue());
    Path file = fileOf(table);
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, bytes.toByteArray());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
