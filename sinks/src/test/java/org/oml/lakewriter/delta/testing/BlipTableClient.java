package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;

/**
 * An object-store blip: from the first commit on, every commit throws a transient {@link
 * IOException} for {@code duration}, then commits go through again.
 */
public final class BlipTableClient extends ForwardingDeltaTableClient {
  private final long durationNanos;
  private long blipEndsAt = Long.MIN_VALUE;
  private int failures;

  public BlipTableClient(DeltaTableClient delegate, Duration duration) {
    super(delegate);
    this.durationNanos = duration.toNanos();
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    blip(table);
    return delegate.commit(table, batchEnd, files);
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
    blip(table);
    return delegate.commitRewrite(table, batchEnd, files, rewrite);
  }

  public int failures() {
    return failures;
  }

  private void blip(TableId table) throws IOException {
    if (blipEndsAt == Long.MIN_VALUE) {
      blipEndsAt = System.nanoTime() + durationNanos;
    }
    if (System.nanoTime() < blipEndsAt) {
      failures++;
      throw new IOException("object store unavailable (blip) while committing " + table);
    }
  }

  /** A factory for a job: the blip starts at the job's first commit, once per JVM and name. */
  public static final class Factory implements org.oml.lakewriter.delta.DeltaTableClientFactory {
    private static final long serialVersionUID = 1L;
    private static final java.util.Map<String, Long> STARTS =
        new java.util.concurrent.ConcurrentHashMap<>();
    private final org.oml.lakewriter.delta.DeltaTableClientFactory delegate;
    private final String name;
    private final Duration duration;

    public Factory(
        org.oml.lakewriter.delta.DeltaTableClientFactory delegate, String name, Duration duration) {
      this.delegate = delegate;
      this.name = name;
      this.duration = duration;
    }

    @Override
    public DeltaTableClient create() throws IOException {
      DeltaTableClient inner = delegate.create();
      return new ForwardingDeltaTableClient(inner) {
        @Override
        public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
            throws IOException {
          blip(table);
          return delegate.commit(table, batchEnd, files);
        }

        @Override
        public CommitOutcome commitRewrite(
            TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite)
            throws IOException {
          blip(table);
          return delegate.commitRewrite(table, batchEnd, files, rewrite);
        }
      };
    }

    private void blip(TableId table) throws IOException {
      long start = STARTS.computeIfAbsent(name, n -> System.nanoTime());
      if (System.nanoTime() - start < duration.toNanos()) {
        throw new IOException("object store unavailable (blip) while committing " + table);
      }
    }
  }

}
