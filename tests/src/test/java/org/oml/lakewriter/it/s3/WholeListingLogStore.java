package org.oml.lakewriter.it.s3;

import io.delta.storage.HadoopFileSystemLogStore;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/** Hadoop's own {@code listFrom}, which lists the whole directory: the baseline; no writes. */
public final class WholeListingLogStore extends HadoopFileSystemLogStore {
  public WholeListingLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf) {
    throw new UnsupportedOperationException("a baseline for listings only");
  }

  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) {
    return false;
  }
}
