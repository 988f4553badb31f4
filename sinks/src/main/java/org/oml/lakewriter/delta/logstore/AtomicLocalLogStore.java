package org.oml.lakewriter.delta.logstore;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Iterator;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;

/**
 * A Delta {@code LogStore} for the local filesystem whose put-if-absent is atomic: the commit file
 * is written in full to a temp file beside its target, then published with a hard link ({@code
 * Files.createLink}), which the kernel creates only if the target name is free. Of two writers
 * racing for version {@code N}, exactly one gets {@code N.json}; the other gets {@link
 * java.nio.file.FileAlreadyExistsException}, which Kernel turns into conflict resolution (and, with
 * our txn action, into {@code ConcurrentTransactionException}).
 *
 * <p>Kernel's default for {@code file:} is {@code HDFSLogStore}: it checks that the target is
 * absent and then renames, and in races two writers both won the same version (STACK-NOTES).
 *
 * <p>Readers never see a partial commit file, since the name appears only once the content is
 * complete and synced. Registered for the {@code file} scheme through {@link #CONF_KEY}.
 *
 * <p>Listing ({@link #listFrom}) reads the directory's names and stats only the files it returns:
 * the inherited listing stats every file of the directory, and a table's log keeps 30 days of
 * commit files (docs/scale.md, "Listing the log without a stat per file").
 */
public class AtomicLocalLogStore extends HadoopFileSystemLogStore {
  /**
   * The Hadoop configuration key through which Kernel's default engine picks the log store of the
   * {@code file} scheme ({@code LogStoreProvider}: {@code io.delta.kernel.logStore.<scheme>.impl}).
   */
  public static final String CONF_KEY = "io.delta.kernel.logStore.file.impl";

  public AtomicLocalLogStore(Configuration initHadoopConf) {
    super(initHadoopConf);
  }

  /** Registers this log store for {@code file:} paths, unless the configuration names another. */
  public static void registerIfAbsent(Configuration conf) {
    if (conf.get(CONF_KEY) == null) {
      conf.set(CONF_KEY, AtomicLocalLogStore.class.getName());
    }
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    java.nio.file.Path target = toLocal(path, conf);
    Files.createDirectories(target.getParent());
    java.nio.file.Path temp =
        target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      writeSynced(temp, actions);
      if (overwrite) {
        // Overwrites are only used for files that may legitimately be rewritten (_last_checkpoint).
        Files.move(
            temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.createLink(target, temp);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * The files of {@code path}'s directory whose names sort at or after {@code path}'s, in name
   * order, as the inherited listing returns them (the same statuses, and its {@code
   * FileNotFoundException} when the directory is missing), but with a stat of those files only,
   * not of every file of the directory ({@link LocalLakeFileSystem#listStatusFrom}, the lake's
   * filesystem for {@code file:}). Every snapshot load, log compaction and log cleanup lists the
   * log from a recent version, and the log keeps every commit, checksum and log compaction file of
   * the last 30 days ({@code delta.logRetentionDuration}).
   */
  @Override
  public Iterator<FileStatus> listFrom(Path path, Configuration conf) throws IOException {
    FileStatus[] listed =
        path.getFileSystem(conf) instanceof LocalLakeFileSystem local
            ? local.listStatusFrom(path.getParent(), path.getName())
            : null;
    // Another file: implementation, or not a directory: the inherited listing (and its error).
    return listed != null ? Arrays.asList(listed).iterator() : super.listFrom(path, conf);
  }

  /**
   * True: Kernel's default engine then writes its other files that must appear whole (checkpoint
   * Parquet files) to a temp name and renames them, instead of writing in place where a reader
   * could pick up a half-written checkpoint. Kernel renames even after a failed write; the
   * writer's engine renames only after a whole one ({@code WholeCheckpointEngine}).
   */
  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) {
    return true;
  }

  private static void writeSynced(java.nio.file.Path temp, Iterator<String> actions)
      throws IOException {
    try (OutputStream out =
        Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      while (actions.hasNext()) {
        out.write((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    // Durable before it becomes visible: a crash must not leave a published, empty commit.
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  private static java.nio.file.Path toLocal(Path path, Configuration conf) throws IOException {
    Path qualified = path.getFileSystem(conf).makeQualified(path);
    if (!"file".equals(qualified.toUri().getScheme())) {
      throw new IOException(
          AtomicLocalLogStore.class.getSimpleName() + " only writes file: paths, got " + path);
    }
    return Paths.get(qualified.toUri());
  }
}
