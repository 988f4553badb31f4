package org.oml.lakewriter.delta.testing.faultfs;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;
import org.oml.lakewriter.delta.testing.faultfs.StorageFaults.Op;

/**
 * The log store of {@code faultfs:} lakes: commits go to the same local file through {@link
 * AtomicLocalLogStore} (the put-if-absent the job relies on stays atomic), after the installed
 * faults had their say; listing and reading go through {@link FaultFileSystem}, where the faults on
 * {@code _delta_log} apply.
 */
public class FaultLogStore extends HadoopFileSystemLogStore {
  private final AtomicLocalLogStore local;

  public FaultLogStore(Configuration conf) {
    super(conf);
    this.local = new AtomicLocalLogStore(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    StorageFaults.check(Op.CREATE, path);
    local.write(new Path("file", null, path.toUri().getPath()), actions, overwrite, conf);
  }

  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) {
    return true;
  }
}
