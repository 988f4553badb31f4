package org.oml.lakewriter.delta.kernel;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A new data file for parquet-java's writer, on a Hadoop file system, that knows its length once
 * closed ({@link #length}): the data file's size for its Delta add action without a status
 * request, which on object storage is a HEAD per data file written.
 *
 * <p>The file is created as parquet-java's {@code HadoopOutputFile} creates it (parents too, no
 * overwrite, the file system's replication, a block size of at least the hint), through the
 * create builder with {@value #CREATE_PERFORMANCE} set: S3A then skips its probes that nothing
 * exists at the path (a HEAD and a LIST per file). A data file's name holds a random UUID, so
 * nothing does; other file systems ignore the option.
 */
final class DataFileOutput implements OutputFile {
  /** S3A's create option that skips the existence probes; an optional option elsewhere. */
  static final String CREATE_PERFORMANCE = "fs.s3a.create.performance";

  /** parquet-java's {@code HadoopOutputFile} buffer size. */
  private static final int BUFFER_SIZE = 4096;

  private final FileSystem fs;
  private final Path path;
  private long length = -1;

  DataFileOutput(FileSystem fs, Path path) {
    this.fs = fs;
    this.path = path;
  }

  /** The bytes written, once the stream is closed. */
  long length() {
    if (length < 0) {
      throw new IllegalStateException(path + " is not closed yet");
    }
    return length;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    return measured(open(false, blockSizeHint));
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return measured(open(true, blockSizeHint));
  }

  private PositionOutputStream open(boolean overwrite, long blockSizeHint) throws IOException {
    FSDataOutputStreamBuilder<?, ?> builder =
        fs.createFile(path)
            .overwrite(overwrite)
            .recursive()
            .bufferSize(BUFFER_SIZE)
            .replication(fs.getDefaultReplication(path))
            .blockSize(Math.max(fs.getDefaultBlockSize(path), blockSizeHint));
    builder.opt(CREATE_PERFORMANCE, true);
    return HadoopStreams.wrap(builder.build());
  }

  @Override
  public boolean supportsBlockSize() {
    return true;
  }

  @Override
  public long defaultBlockSize() {
    return fs.getDefaultBlockSize(path);
  }

  @Override
  public String getPath() {
    return path.toString();
  }

  /**
   * Buffers small writes and records the stream's position when it is closed: the file's length.
   * parquet-java writes a footer and its page headers through Thrift a byte or a few bytes at a
   * time; each of those calls went down Hadoop's stream stack (position cache, byte statistics,
   * checksum summer) on its own. Here they are copied into one buffer and handed down whole.
   */
  private PositionOutputStream measured(PositionOutputStream out) {
    length = -1;
    return new PositionOutputStream() {
      private final byte[] buffer = new byte[BUFFER_SIZE];
      private int buffered;

      @Override
      public long getPos() throws IOException {
        return out.getPos() + buffered;
      }

      @Override
      public void write(int b) throws IOException {
        if (buffered == buffer.length) {
          drain();
        }
        buffer[buffered++] = (byte) b;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (len >= buffer.length) {
          drain();
          out.write(b, off, len);
          return;
        }
        if (len > buffer.length - buffered) {
          drain();
        }
        System.arraycopy(b, off, buffer, buffered, len);
        buffered += len;
      }

      @Override
      public void flush() throws IOException {
        drain();
        out.flush();
      }

      @Override
      public void close() throws IOException {
        drain();
        long end = out.getPos();
        out.close();
        length = end;
      }

      private void drain() throws IOException {
        if (buffered > 0) {
          out.write(buffer, 0, buffered);
          buffered = 0;
        }
      }
    };
  }
}
