package org.oml.lakewriter.delta;

import java.io.IOException;
import java.io.Serializable;

/**
 * Makes the {@link DeltaTableClient} of one writer or committer, on the task manager. The sink
 * carries a factory rather than a client because a client holds a filesystem and caches.
 */
@FunctionalInterface
public interface DeltaTableClientFactory extends Serializable {
  DeltaTableClient create() throws IOException;
}
