package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.io.Serializable;
import java.util.Map;

/**
 * Where quarantine records live. The lake's implementation ({@link LakeQuarantineStore}) is the
 * authority: a record that {@link #put} returned from survives any crash, and a writer or committer
 * started later, on any machine, reads it back.
 *
 * <p>Failures are {@link IOException}s (transient: the caller retries or fails over; never skips).
 */
public interface QuarantineStore extends AutoCloseable {
  /** Every tenant in quarantine, by tenant (table prefix). */
  Map<String, Quarantine> list() throws IOException;

  /** Writes (or replaces) the tenant's record atomically and durably. */
  void put(Quarantine record) throws IOException;

  /** Removes the tenant's record: its tables take files and commits again. */
  void delete(String tenant) throws IOException;

  @Override
  default void close() throws IOException {}

  /** Opens the store on the task manager; the sink carries the factory, not the store. */
  @FunctionalInterface
  interface Factory extends Serializable {
    QuarantineStore open() throws IOException;
  }
}
