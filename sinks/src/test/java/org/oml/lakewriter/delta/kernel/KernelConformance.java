package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.TestInfo;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;

/**
 * What the Kernel conformance suites share: the Kernel version they run on (read from the Kernel
 * jar at run time, never compiled in), assertion descriptions that name it, and raw Kernel calls on
 * the project's own engine ({@link KernelEngines}, so {@link AtomicLocalLogStore} commits).
 */
public final class KernelConformance {
  /** The Kernel version whose behaviour these suites were written against and pin. */
  static final String WRITTEN_FOR = "4.4.0";

  static final String RECHECK =
      "re-check this suite's pinned behaviours (docs/kernel-conformance.md) before changing the"
          + " Kernel version";

  /** The Kernel version on the class path, e.g. {@code 4.4.0}. */
  static final String KERNEL = kernelVersion();

  private KernelConformance() {}

  /**
   * Fails unless the suite runs on {@link #WRITTEN_FOR}, and unless {@code test}'s display name
   * names the Kernel version (so that every report line does).
   */
  static void assertWrittenFor(TestInfo test) {
    assertThat(test.getDisplayName())
        .as("every test's display name names the Kernel version it ran on")
        .startsWith("[Delta Kernel " + KERNEL + "] ");
    assertThat(KERNEL)
        .as(
            "this suite pins Delta Kernel %s's behaviour but runs on Delta Kernel %s: %s",
            WRITTEN_FOR, KERNEL, RECHECK)
        .isEqualTo(WRITTEN_FOR);
  }

  /** An assertion description that names the Kernel version the behaviour was observed on. */
  static String pin(String behaviour) {
    return "Delta Kernel " + KERNEL + ": " + behaviour;
  }

  /**
   * {@code io.delta.kernel.Meta.KERNEL_VERSION}, read by reflection (a compile-time constant would
   * be inlined into this class), checked against the jar manifest's Implementation-Version.
   */
  private static String kernelVersion() {
    try {
      Class<?> meta = Class.forName("io.delta.kernel.Meta");
      String constant = (String) meta.getField("KERNEL_VERSION").get(null);
      String manifest = manifestVersion(meta);
      if (manifest != null && !manifest.equals(constant)) {
        return constant + " (jar manifest says " + manifest + ")";
      }
      return constant;
    } catch (ReflectiveOperationException e) {
      return "unknown (" + e + ")";
    }
  }

  private static String manifestVersion(Class<?> meta) {
    URL classUrl = meta.getResource(meta.getSimpleName() + ".class");
    if (classUrl == null || !"jar".equals(classUrl.getProtocol())) {
      return meta.getPackage().getImplementationVersion();
    }
    String jar = classUrl.toString();
    String manifestUrl = jar.substring(0, jar.indexOf("!/") + 2) + "META-INF/MANIFEST.MF";
    try (InputStream in = new URL(manifestUrl).openStream()) {
      return new Manifest(in).getMainAttributes().getValue("Implementation-Version");
    } catch (IOException e) {
      return null;
    }
  }

  /** Display names that carry the Kernel version the test ran on: {@code [Kernel 4.4.0] name}. */
  static final class WithKernelVersion extends DisplayNameGenerator.Standard {
    @Override
    public String generateDisplayNameForClass(Class<?> testClass) {
      return "[Delta Kernel " + KERNEL + "] " + super.generateDisplayNameForClass(testClass);
    }

    @Override
    public String generateDisplayNameForMethod(Class<?> testClass, Method testMethod) {
      return "[Delta Kernel " + KERNEL + "] " + testMethod.getName();
    }
  }

  /** A fresh default engine over the project's configuration (its own log store instance). */
  static Engine engine(Configuration conf) {
    return KernelEngines.engine(conf);
  }

  static Snapshot latest(Engine engine, String tablePath) {
    return TableManager.loadSnapshot(tablePath).build(engine);
  }

  static Snapshot atVersion(Engine engine, String tablePath, long version) {
    return TableManager.loadSnapshot(tablePath).atVersion(version).build(engine);
  }

  /** A commit with no data, only {@code txn(appId, txnVersion)} (and Kernel's commitInfo). */
  static TransactionCommitResult commitTxn(
      Engine engine, Snapshot base, String engineInfo, String appId, long txnVersion, int retries) {
    return base.buildUpdateTableTransaction(engineInfo, Operation.WRITE)
        .withTransactionId(appId, txnVersion)
        .withMaxRetries(retries)
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
  }

  static Path logDir(String tablePath) {
    return Paths.get(URI.create(tablePath)).resolve("_delta_log");
  }

  static Path commitFile(String tablePath, long version) {
    return logDir(tablePath).resolve(String.format("%020d.json", version));
  }

  /** The lines of one log version's commit file. */
  static List<String> actionsOf(String tablePath, long version) throws IOException {
    return Files.readAllLines(commitFile(tablePath, version));
  }

  /** The commit files of the log, by version. */
  static List<Long> commitVersions(String tablePath) throws IOException {
    List<Long> versions = new ArrayList<>();
    try (Stream<Path> files = Files.list(logDir(tablePath))) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .sorted()
          .forEach(n -> versions.add(Long.parseLong(n.substring(0, 20))));
    }
    return versions;
  }

  /**
   * The project's log store with a hook: the next commit-file write first runs {@link
   * #BEFORE_NEXT_COMMIT} (once), e.g. another writer's commit of the same version, so that a race
   * that is otherwise a matter of luck happens every time.
   */
  public static final class InterposingLogStore extends AtomicLocalLogStore {
    public static final AtomicReference<Runnable> BEFORE_NEXT_COMMIT = new AtomicReference<>();

    public InterposingLogStore(Configuration conf) {
      super(conf);
    }

    @Override
    public void write(
        org.apache.hadoop.fs.Path path,
        Iterator<String> actions,
        Boolean overwrite,
        Configuration conf)
        throws IOException {
      if (!overwrite && path.getName().matches("\\d{20}\\.json")) {
        Runnable intruder = BEFORE_NEXT_COMMIT.getAndSet(null);
        if (intruder != null) {
          intruder.run();
        }
      }
      super.write(path, actions, overwrite, conf);
    }
  }
}
