package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopInputFile;
import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A new data file for parquet-java's writer, on a Hadoop file system, that remembers how many
 * bytes went into it and the last {@code ring.length} of them, so that the footer of the Parquet
 * file just written can be read back from memory ({@link #readBack}): no status request and no
 * read of the file, which on object storage are a HEAD and one or two GETs per data file written.
 *
 * <p>The file is created as parquet-java's {@code HadoopOutputFile} creates it (parents too, no
 * overwrite, the file system's replication, a block size of at least the hint), through the
 * create builder with {@value #CREATE_PERFORMANCE} set: S3A then skips its probes that nothing
 * exists at the path (a HEAD and a LIST per file). A data file's name holds a random UUID, so
 * nothing does; other file systems ignore the option.
 *
 * <p>Parquet writes its footer last, followed by the footer's length and the magic bytes, so the
 * tail holds the whole footer unless the footer is larger than the ring; a read outside
 * the tail then fails with {@link NotKept}, and the caller reads the file instead.
 *
 * <p>One file at a time: {@link #create} starts over, and the ring holds the last file's tail.
 */
final class TailKeepingOutputFile implements OutputFile {
  /** S3A's create option that skips the existence probes; an optional option elsewhere. */
  static final String CREATE_PERFORMANCE = "fs.s3a.create.performance";

  /** parquet-java's {@code HadoopOutputFile} buffer size. */
  private static final int BUFFER_SIZE = 4096;

  private final FileSystem fs;
  private final Path path;
  private final byte[] ring;
  private long written;

  /** @param ring where the tail is kept; reused from file to file by a single-threaded writer */
  TailKeepingOutputFile(FileSystem fs, Path path, byte[] ring) {
    this.fs = fs;
    this.path = path;
    this.ring = ring;
  }

  /** The bytes written so far, i.e. the file's length once it is closed. */
  long length() {
    return written;
  }

  /**
   * The file as written, for Kernel's footer reader: a {@link HadoopInputFile} (so that Kernel
   * reads it with {@code fs}'s configuration, not a fresh one) whose stream serves the kept tail.
   */
  HadoopInputFile readBack() {
    long length = written;
    int kept = (int) Math.min(length, ring.length);
    byte[] tail = new byte[kept];
    int start = (int) ((length - kept) % ring.length);
    int first = Math.min(kept, ring.length - start);
    System.arraycopy(ring, start, tail, 0, first);
    System.arraycopy(ring, 0, tail, first, kept - first);
    return new HadoopInputFile(fs, path, length) {
      @Override
      public SeekableInputStream newStream() {
        return new TailStream(tail, length - kept, length);
      }
    };
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    return keep(open(false, blockSizeHint));
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return keep(open(true, blockSizeHint));
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

  private PositionOutputStream keep(PositionOutputStream out) {
    written = 0;
    return new PositionOutputStream() {
      @Override
      public long getPos() throws IOException {
        return out.getPos();
      }

      @Override
      public void write(int b) throws IOException {
        out.write(b);
        ring[(int) (written % ring.length)] = (byte) b;
        written++;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        int skip = Math.max(0, len - ring.length); // only the last ring.length bytes can stay
        for (int from = off + skip, left = len - skip; left > 0; ) {
          int at = (int) ((written + skip) % ring.length);
          int n = Math.min(left, ring.length - at);
          System.arraycopy(b, from, ring, at, n);
          from += n;
          left -= n;
          skip += n;
        }
        written += len;
      }

      @Override
      public void flush() throws IOException {
        out.flush();
      }

      @Override
      public void close() throws IOException {
        out.close();
      }
    };
  }

  /** A read of the written file outside the bytes kept in memory. */
  static final class NotKept extends IOException {
    private static final long serialVersionUID = 1L;

    NotKept(long position, long keptFrom) {
      super("byte " + position + " of the file is not kept in memory (kept from " + keptFrom + ")");
    }
  }

  /** Reads {@code [from, length)} of the file, held in {@code tail}. */
  private static final class TailStream extends SeekableInputStream {
    private final byte[] tail;
    private final long from;
    private final long length;
    private long pos;

    TailStream(byte[] tail, long from, long length) {
      this.tail = tail;
      this.from = from;
      this.length = length;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    @Override
    public int read() throws IOException {
      if (pos >= length) {
        return -1;
      }
      check(pos);
      return tail[(int) (pos++ - from)] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      check(pos);
      int n = (int) Math.min(len, length - pos);
      System.arraycopy(tail, (int) (pos - from), b, off, n);
      pos += n;
      return n;
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
      if (pos + len > length) {
        throw new EOFException("read of " + len + " bytes at " + pos + " past the end " + length);
      }
      check(pos);
      System.arraycopy(tail, (int) (pos - from), b, off, len);
      pos += len;
    }

    private void check(long position) throws NotKept {
      if (position < from) {
        throw new NotKept(position, from);
      }
    }
  }
}
