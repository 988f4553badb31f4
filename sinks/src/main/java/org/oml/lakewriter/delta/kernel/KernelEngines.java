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
import org.oml.lakewriter.delta.logstore.S3ConditionalLogStore;

/**
 * Builds Kernel's default engine over Hadoop's {@code FileSystem}, so that {@code file:}, {@code
 * s3a://} and {@code abfs://} roots differ only by configuration. Every engine built here commits
 * to local paths through {@link AtomicLocalLogStore} and reaches a local lake through {@link
 * LocalLakeFileSystem}, and to {@code s3a://} paths through {@link S3ConditionalLogStore}, unless
 * the configuration names other implementations for those schemes.
 *
 * <p>Hadoop caches one filesystem per scheme and user for the whole JVM: if something else created
 * the {@code file:} filesystem first, that instance serves the lake too (slower, still correct).
 */
public final class KernelEngines {
  private KernelEngines() {}

  private static final String LOCAL_CACHE_OFF = "fs.file.impl.disable.cache";

  public static Configuration hadoopConf(LakeConfig config) {
    Configuration conf = new Configuration();
    config.hadoopProperties().forEach(conf::set);
    AtomicLocalLogStore.registerIfAbsent(conf);
    // s3a:// commits are conditional PUTs (If-None-Match: *), not Kernel's single-driver default.
    S3ConditionalLogStore.registerIfAbsent(conf);
    if (isLocal(config.lakeRoot())) {
      if (conf.get(LocalLakeFileSystem.CONF_KEY) == null) {
        conf.set(LocalLakeFileSystem.CONF_KEY, LocalLakeFileSystem.class.getName());
      }
    } else if (conf.get(LOCAL_CACHE_OFF) == null) {
      // An object-store lake buffers its uploads on local disk through FileSystem.getLocal(conf),
      // which casts the file: filesystem to LocalFileSystem. A LocalLakeFileSystem cached for a
      // local lake in the same JVM (tests, or a task manager that served one) would fail that cast,
      // so this lake's file: filesystem is Hadoop's own and never taken from the cache.
      conf.setBoolean(LOCAL_CACHE_OFF, true);
    }
    return conf;
  }

  /** Whether the lake root is on the local filesystem ({@code file:} or a plain path). */
  static boolean isLocal(String lakeRoot) {
    String scheme = new Path(lakeRoot).toUri().getScheme();
    return scheme == null || "file".equals(scheme);
  }

  static Engine engine(Configuration conf) {
    return DefaultEngine.create(conf);
  }

  /**
   * The engine that writes: the same as {@link #engine(Configuration)}, over a file IO the caller
   * shares, whose log checkpoints appear only once written whole ({@link WholeCheckpointEngine}).
   */
  static Engine writingEngine(FileIO fileIO, Configuration conf) {
    return new WholeCheckpointEngine(DefaultEngine.create(fileIO), conf);
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
