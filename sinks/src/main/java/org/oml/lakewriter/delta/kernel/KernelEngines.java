package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;

/**
 * Builds Kernel's default engine over Hadoop's {@code FileSystem}, so that {@code file:}, {@code
 * s3a://} and {@code abfs://} roots differ only by configuration. Every engine built here commits
 * to local paths through {@link AtomicLocalLogStore} and reaches them through {@link
 * LocalLakeFileSystem}, unless the configuration names other implementations for {@code file:}.
 *
 * <p>Hadoop caches one filesystem per scheme and user for the whole JVM: if something else created
 * the {@code file:} filesystem first, that instance serves the lake too (slower, still correct).
 */
public final class KernelEngines {
  private KernelEngines() {}

  public static Configuration hadoopConf(LakeConfig config) {
    Configuration conf = new Configuration();
    config.hadoopProperties().forEach(conf::set);
    AtomicLocalLogStore.registerIfAbsent(conf);
    if (conf.get(LocalLakeFileSystem.CONF_KEY) == null) {
      conf.set(LocalLakeFileSystem.CONF_KEY, LocalLakeFileSystem.class.getName());
    }
    return conf;
  }

  static Engine engine(Configuration conf) {
    return DefaultEngine.create(conf);
  }

  /** The same engine as {@link #engine(Configuration)}, over a file IO the caller shares. */
  static Engine engine(FileIO fileIO) {
    return DefaultEngine.create(fileIO);
  }

  /** The lake root as a fully qualified URI without a trailing slash ({@code file:/tmp/lake}). */
  static String qualifiedRoot(LakeConfig config, Configuration conf) throws IOException {
    Path root = new Path(config.lakeRoot());
    String qualified = root.getFileSystem(conf).makeQualified(root).toString();
    return qualified.endsWith("/") ? qualified.substring(0, qualified.length() - 1) : qualified;
  }

  static <T> CloseableIterator<T> iterator(List<T> items) {
    Iterator<T> it = items.iterator();
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public T next() {
        return it.next();
      }

      @Override
      public void close() {}
    };
  }
}
