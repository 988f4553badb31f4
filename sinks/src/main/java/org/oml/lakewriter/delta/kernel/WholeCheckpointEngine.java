package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Kernel's engine, except that a Parquet file written "atomically" (a log checkpoint) appears under
 * its name only once it was written whole.
 *
 * <p>Kernel 4.4's default handler does not promise that. It writes the checkpoint inside a
 * try-with-resources whose close publishes the file: renames the temporary file into place on a
 * filesystem, completes the upload on an object store. A failure while the checkpoint is being
 * written (a log read that fails, an interrupted thread, a full disk) therefore still publishes
 * the part written so far: a truncated file, on which every later snapshot load of the table fails
 * ("is not a Parquet file") until someone deletes it, or, when the log read failed, a valid
 * checkpoint without the unread commits' files, which silently drops their rows from the table
 * (WholeCheckpointEngineITCase shows both halves). Here the default handler writes to a hidden
 * name in the same directory ({@code .<name>.<uuid>.tmp}, which log listings skip, as Kernel's own
 * temporary files), and the file is renamed to its name only if that write returned normally (on a
 * local lake, once forced to disk). On a failure the temporary file is deleted; a process killed
 * mid-write leaves only a hidden file.
 *
 * <p>An existing checkpoint of the same version is kept: the write fails with {@link
 * FileAlreadyExistsException}, which Kernel reports as a checkpoint that already exists.
 */
final class WholeCheckpointEngine extends ForwardingEngine {
  private final ParquetHandler parquet;

  WholeCheckpointEngine(Engine delegate, Configuration conf) {
    super(delegate);
    this.parquet = new WholeFileParquetHandler(delegate.getParquetHandler(), conf);
  }

  @Override
  public ParquetHandler getParquetHandler() {
    return parquet;
  }

  /** Reads and writes data files as the delegate does; see the class comment for the rest. */
  private static final class WholeFileParquetHandler implements ParquetHandler {
    private final ParquetHandler delegate;
    private final Configuration conf;

    WholeFileParquetHandler(ParquetHandler delegate, Configuration conf) {
      this.delegate = delegate;
      this.conf = conf;
    }

    @Override
    public CloseableIterator<FileReadResult> readParquetFiles(
        CloseableIterator<FileStatus> files, StructType schema, Optional<Predicate> predicate)
        throws IOException {
      return delegate.readParquetFiles(files, schema, predicate);
    }

    @Override
    public CloseableIterator<DataFileStatus> writeParquetFiles(
        String directory, CloseableIterator<FilteredColumnarBatch> data, List<Column> statsColumns)
        throws IOException {
      return delegate.writeParquetFiles(directory, data, statsColumns);
    }

    @Override
    public void writeParquetFileAtomically(
        String filePath, CloseableIterator<FilteredColumnarBatch> data) throws IOException {
      Path target = new Path(filePath);
      Path temp =
          new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
      FileSystem fs = target.getFileSystem(conf);
      boolean published = false;
      try {
        delegate.writeParquetFileAtomically(temp.toString(), data);
        syncIfLocal(fs, temp);
        if (fs.exists(target)) {
          throw new FileAlreadyExistsException(filePath);
        }
        published = fs.rename(temp, target);
        if (!published) {
          throw new IOException("could not rename " + temp + " to " + target);
        }
      } finally {
        if (!published) {
          deleteQuietly(fs, temp);
        }
      }
    }

    /**
     * On a local lake, forces the file to disk before it gets its name, as {@code
     * AtomicLocalLogStore} does for a commit: after a power loss the name must not point at an
     * empty file. An object store's upload is durable once it completed.
     */
    private static void syncIfLocal(FileSystem fs, Path file) throws IOException {
      URI uri = fs.makeQualified(file).toUri();
      if ("file".equals(uri.getScheme())) {
        try (FileChannel channel = FileChannel.open(Paths.get(uri), StandardOpenOption.WRITE)) {
          channel.force(true);
        }
      }
    }

    private static void deleteQuietly(FileSystem fs, Path temp) {
      try {
        fs.delete(temp, false);
      } catch (IOException | RuntimeException e) {
        // A leftover hidden file is harmless: log listings skip it.
      }
    }
  }
}
