package org.oml.lakewriter.delta.quarantine;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;

/**
 * Quarantine records in the lake itself, through the Hadoop {@code FileSystem} the sink already
 * uses: {@code <lake>/_lakewriter/quarantine/<tenant>/<generation>.json}. No tenant id can start
 * with {@code _}, so no table ever lives there.
 *
 * <p>Atomic without overwrite: each {@link #put} writes a new generation (the highest existing one
 * plus one) to a hidden temporary file and renames it to its final, not yet existing name; readers
 * take the highest generation of each tenant. A crash leaves either the old record or the new one,
 * never a torn or missing one. Older generations are deleted after the rename, and {@link #delete}
 * removes them oldest first, so a crash in the middle leaves a record that still holds the tenant
 * (a spare replay later, filtered per table by its txn version: no duplicates).
 *
 * <p>Rename to an absent name is atomic on HDFS, ABFS and the local filesystem. On S3A it is a copy
 * of one small object (the new generation is only read once complete), and there is one writer.
 */
public final class LakeQuarantineStore implements QuarantineStore {
  /** The records' directory below the lake root. */
  public static final String DIRECTORY = "_lakewriter/quarantine";

  private final FileSystem fs;
  private final Path dir;

  public LakeQuarantineStore(LakeConfig lake) throws IOException {
    Configuration conf = KernelEngines.hadoopConf(lake);
    Path root = new Path(lake.lakeRoot());
    this.fs = root.getFileSystem(conf);
    this.dir = new Path(fs.makeQualified(root), DIRECTORY);
  }

  /** A serializable factory for the sink. */
  public static Factory factory(LakeConfig lake) {
    Objects.requireNonNull(lake, "lake");
    return new Factory() {
      private static final long serialVersionUID = 1L;

      @Override
      public QuarantineStore open() throws IOException {
        return new LakeQuarantineStore(lake);
      }

      @Override
      public String toString() {
        return "LakeQuarantineStore{" + lake.lakeRoot() + "/" + DIRECTORY + "}";
      }
    };
  }

  @Override
  public Map<String, Quarantine> list() throws IOException {
    Map<String, Quarantine> records = new TreeMap<>();
    for (FileStatus tenantDir : listOrEmpty(dir)) {
      if (!tenantDir.isDirectory()) {
        continue;
      }
      List<Path> generations = generations(tenantDir.getPath());
      if (!generations.isEmpty()) {
        Path newest = generations.get(generations.size() - 1);
        Quarantine record = Quarantine.fromJson(read(newest), newest.toString());
        records.put(record.tenant(), record);
      }
    }
    return records;
  }

  @Override
  public void put(Quarantine record) throws IOException {
    Path tenantDir = new Path(dir, record.tenant());
    List<Path> old = generations(tenantDir);
    long next = old.isEmpty() ? 1 : generationOf(old.get(old.size() - 1)) + 1;
    Path target = new Path(tenantDir, String.format("%020d.json", next));
    Path tmp = new Path(tenantDir, "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
    try (OutputStream out = fs.create(tmp, false)) {
      out.write(record.toJson());
    }
    if (!fs.rename(tmp, target)) {
      fs.delete(tmp, false);
      throw new IOException(
          "quarantine record of tenant "
              + record.tenant()
              + " not written: rename to "
              + target
              + " failed (another writer on this lake? exactly one lake writer may run)");
    }
    for (Path stale : old) {
      fs.delete(stale, false);
    }
  }

  @Override
  public void delete(String tenant) throws IOException {
    Path tenantDir = new Path(dir, tenant);
    for (Path generation : generations(tenantDir)) {
      fs.delete(generation, false);
    }
    fs.delete(tenantDir, true);
  }

  private List<Path> generations(Path tenantDir) throws IOException {
    List<Path> paths = new ArrayList<>();
    for (FileStatus file : listOrEmpty(tenantDir)) {
      String name = file.getPath().getName();
      if (file.isFile() && name.matches("\\d{20}\\.json")) {
        paths.add(file.getPath());
      }
    }
    paths.sort((a, b) -> a.getName().compareTo(b.getName()));
    return paths;
  }

  private static long generationOf(Path path) {
    return Long.parseLong(path.getName().substring(0, 20));
  }

  private FileStatus[] listOrEmpty(Path path) throws IOException {
    try {
      return fs.listStatus(path);
    } catch (FileNotFoundException e) {
      return new FileStatus[0];
    }
  }

  private byte[] read(Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      in.transferTo(bytes);
      return bytes.toByteArray();
    }
  }

  @Override
  public String toString() {
    return "LakeQuarantineStore{" + dir + "}";
  }
}
