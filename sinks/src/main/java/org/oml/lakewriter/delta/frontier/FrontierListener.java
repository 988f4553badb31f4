package org.oml.lakewriter.delta.frontier;

import java.io.IOException;
import java.io.Serializable;

/**
 * Told, after every table a batch touched has committed, that the lake now holds every row up to
 * {@code frontierSeq}. What it records is a cache for {@code lakewriter status}: recovery
 * never reads it (each table's own txn version is the truth), so a failed update is logged and the
 * stream goes on.
 *
 * <p>Lives inside the sink, hence serializable; connections are opened lazily on the committer.
 */
public interface FrontierListener extends Serializable, AutoCloseable {
  /** A listener that records nothing, for jobs that do not publish their frontier. */
  FrontierListener NONE = new NoFrontierListener();

  /** Called in increasing order of {@code frontierSeq} within one committer's life. */
  void frontierAdvanced(long frontierSeq) throws IOException;

  @Override
  default void close() throws IOException {}

  /** The {@link #NONE} listener; a class so that it deserializes to a working instance. */
  final class NoFrontierListener implements FrontierListener {
    private static final long serialVersionUID = 1L;

    @Override
    public void frontierAdvanced(long frontierSeq) {}

    @Override
    public String toString() {
      return "FrontierListener.NONE";
    }
  }
}
