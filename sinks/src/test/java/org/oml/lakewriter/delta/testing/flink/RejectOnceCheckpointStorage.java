package org.oml.lakewriter.delta.testing.flink;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStateToolset;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageAccess;
import org.apache.flink.runtime.state.CheckpointStorageLocation;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Checkpoint storage that rejects one state write: the {@code n}-th state stream a task opens for a
 * checkpoint fails with an {@link IOException}, as a checkpoint directory that is full or briefly
 * unwritable does. State streams are opened in the asynchronous part of a checkpoint (after the
 * barrier and the synchronous snapshot), so that is the part that fails. Everything else is the
 * delegate's. Serializable by name: the count lives in a static registry, since the storage object
 * travels to the task inside the job graph.
 */
public final class RejectOnceCheckpointStorage implements CheckpointStorage {
  private static final long serialVersionUID = 1L;
  private static final Map<String, AtomicInteger> STREAMS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> REJECTED = new ConcurrentHashMap<>();

  private final CheckpointStorage delegate;
  private final String name;
  private final int rejectStream;

  /** @param rejectStream the state stream (counted from 1, over the whole job) that fails */
  public RejectOnceCheckpointStorage(CheckpointStorage delegate, String name, int rejectStream) {
    this.delegate = delegate;
    this.name = name;
    this.rejectStream = rejectStream;
    STREAMS.put(name, new AtomicInteger());
    REJECTED.put(name, new AtomicInteger());
  }

  /** State writes rejected so far. */
  public static int rejected(String name) {
    return REJECTED.get(name).get();
  }

  @Override
  public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer) throws IOException {
    return delegate.resolveCheckpoint(pointer);
  }

  @Override
  public CheckpointStorageAccess createCheckpointStorage(JobID jobId) throws IOException {
    CheckpointStorageAccess access = delegate.createCheckpointStorage(jobId);
    return new CheckpointStorageAccess() {
      @Override
      public boolean supportsHighlyAvailableStorage() {
        return access.supportsHighlyAvailableStorage();
      }

      @Override
      public boolean hasDefaultSavepointLocation() {
        return access.hasDefaultSavepointLocation();
      }

      @Override
      public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer)
          throws IOException {
        return access.resolveCheckpoint(pointer);
      }

      @Override
      public void initializeBaseLocationsForCheckpoint() throws IOException {
        access.initializeBaseLocationsForCheckpoint();
      }

      @Override
      public CheckpointStorageLocation initializeLocationForCheckpoint(long checkpointId)
          throws IOException {
        return access.initializeLocationForCheckpoint(checkpointId);
      }

      @Override
      public CheckpointStorageLocation initializeLocationForSavepoint(
          long checkpointId, String location) throws IOException {
        return access.initializeLocationForSavepoint(checkpointId, location);
      }

      @Override
      public CheckpointStreamFactory resolveCheckpointStorageLocation(
          long checkpointId, CheckpointStorageLocationReference reference) throws IOException {
        return rejecting(
            access.resolveCheckpointStorageLocation(checkpointId, reference), checkpointId);
      }

      @Override
      public CheckpointStateOutputStream createTaskOwnedStateStream() throws IOException {
        return access.createTaskOwnedStateStream();
      }

      @Override
      public CheckpointStateToolset createTaskOwnedCheckpointStateToolset() {
        return access.createTaskOwnedCheckpointStateToolset();
      }
    };
  }

  private CheckpointStreamFactory rejecting(CheckpointStreamFactory factory, long checkpointId) {
    return new CheckpointStreamFactory() {
      @Override
      public CheckpointStateOutputStream createCheckpointStateOutputStream(
          CheckpointedStateScope scope) throws IOException {
        if (STREAMS.get(name).incrementAndGet() == rejectStream) {
          REJECTED.get(name).incrementAndGet();
          throw new IOException(
              "injected: the checkpoint directory rejected a state write of checkpoint "
                  + checkpointId);
        }
        return factory.createCheckpointStateOutputStream(scope);
      }

      @Override
      public boolean canFastDuplicate(StreamStateHandle handle, CheckpointedStateScope scope)
          throws IOException {
        return factory.canFastDuplicate(handle, scope);
      }

      @Override
      public List<StreamStateHandle> duplicate(
          List<StreamStateHandle> handles, CheckpointedStateScope scope) throws IOException {
        return factory.duplicate(handles, scope);
      }

      @Override
      public void reusePreviousStateHandle(Collection<? extends StreamStateHandle> handles) {
        factory.reusePreviousStateHandle(handles);
      }

      @Override
      public boolean couldReuseStateHandle(StreamStateHandle handle) {
        return factory.couldReuseStateHandle(handle);
      }
    };
  }
}
