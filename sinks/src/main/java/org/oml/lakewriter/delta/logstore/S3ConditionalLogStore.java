package org.oml.lakewriter.delta.logstore;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * A Delta {@code LogStore} for {@code s3a://} whose put-if-absent is the object store's own: each
 * {@code _delta_log} entry is created with one conditional PUT ({@code If-None-Match: *}), which
 * the store accepts only while the key is absent. Of two writers racing for version {@code N},
 * exactly one creates {@code N.json}; the other gets HTTP 412, which this class turns into {@link
 * java.nio.file.FileAlreadyExistsException}, what Kernel expects of a lost race (and, with our txn
 * action, what becomes {@code ConcurrentTransactionException}).
 *
 * <p>The PUT is S3A's own: {@code FileSystem.createFile(path)} with the mandatory option {@value
 * #CONDITIONAL_CREATE} (Hadoop 3.4.2+). Plain {@code FileSystem.create(path, false)} is not enough:
 * it checks for the key and then PUTs unconditionally. Credentials, endpoint, TLS and retries stay
 * S3A's ({@code lake.hadoop.fs.s3a.*}).
 *
 * <p>An SDK retry can turn a lost acknowledgement into a 412 against our own object. Each attempt
 * therefore carries a fresh write id as user metadata ({@value #WRITE_ID_OPTION}); after a 412 or
 * an error of unknown outcome, the object's write id tells whether we won. A 409 ({@code
 * ConditionalRequestConflict}: another conditional write on the key is in flight) is retried with
 * the whole body, which is buffered, a few times.
 *
 * <p>Overwrites ({@code _last_checkpoint}) stay plain PUTs. A PUT is atomic, so partial writes are
 * never visible ({@link #isPartialWriteVisible} is false) and Kernel writes checkpoints in place;
 * the writer's engine copies them to their name after a whole write ({@code
 * WholeCheckpointEngine}), since Kernel completes the upload of a failed one.
 * Registered for the {@code s3a} scheme through {@link #CONF_KEY}; the store must enforce the
 * condition (docs/object-storage.md lists which do).
 */
public class S3ConditionalLogStore extends HadoopFileSystemLogStore {
  /** Kernel's key for the log store of the {@code s3a} scheme ({@code LogStoreProvider}). */
  public static final String CONF_KEY = "io.delta.kernel.logStore.s3a.impl";

  /** Hadoop's create option for {@code If-None-Match: *} (a path capability of S3A 3.4.2+). */
  public static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  /** S3A's switch for conditional create; true by default. */
  public static final String S3A_CONDITIONAL_ENABLED = "fs.s3a.create.conditional.enabled";

  /** The user-metadata key of the write id. */
  static final String WRITE_ID_KEY = "oml-write-id";

  /** S3A's create option that sets user metadata {@link #WRITE_ID_KEY}. */
  static final String WRITE_ID_OPTION = "fs.s3a.create.header." + WRITE_ID_KEY;

  /** The extended attribute under which S3A returns that user metadata. */
  static final String WRITE_ID_XATTR = "header." + WRITE_ID_KEY;

  /** Attempts on HTTP 409 (a concurrent conditional write in flight) before giving up. */
  static final int CONFLICT_ATTEMPTS = 5;

  public S3ConditionalLogStore(Configuration initHadoopConf) {
    super(initHadoopConf);
  }

  /** Registers this log store for {@code s3a:} paths, unless the configuration names another. */
  public static void registerIfAbsent(Configuration conf) {
    if (conf.get(CONF_KEY) == null) {
      conf.set(CONF_KEY, S3ConditionalLogStore.class.getName());
    }
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    byte[] body = encode(actions);
    FileSystem fs = path.getFileSystem(conf);
    if (overwrite) {
      try (FSDataOutputStream out = fs.create(path, true)) {
        out.write(body);
      }
      return;
    }
    requireConditionalCreate(fs, path);
    for (int attempt = 1; ; attempt++) {
      String writeId = UUID.randomUUID().toString();
      try {
        putIfAbsent(fs, path, body, writeId);
        return;
      } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
        // S3A's own probe before the PUT saw the key: a lost race, decided before any PUT.
        throw alreadyExists(path, e);
      } catch (IOException e) {
        if (e instanceof InterruptedIOException) {
          throw e;
        }
        int status = S3Status.of(e);
        if (status == 412) {
          if (isOurs(fs, path, writeId)) {
            return; // a retried PUT of ours met the object its first, unacknowledged try made
          }
          throw alreadyExists(path, e);
        }
        if (status == 409 && attempt < CONFLICT_ATTEMPTS) {
          sleepBeforeRetry(attempt);
          continue;
        }
        if (isOurs(fs, path, writeId)) {
          return; // the outcome was unknown, but the object is ours: the commit happened
        }
        throw new IOException(
            "conditional create of "
                + path
                + " failed (HTTP "
                + (status < 0 ? "status unknown" : status)
                + ", attempt "
                + attempt
                + "); the commit did not happen unless the log shows it",
            e);
      }
    }
  }

  /**
   * The log's entries from {@code path}'s name on, with start-after LIST requests on S3A, a page at
   * a time as they are read ({@link S3LogListing}), instead of a listing of the whole directory;
   * the inherited listing on any other filesystem.
   */
  @Override
  public Iterator<FileStatus> listFrom(Path path, Configuration conf) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    return fs instanceof S3AFileSystem s3a
        ? S3LogListing.listFrom(s3a, path)
        : super.listFrom(path, conf);
  }

  /**
   * False: a PUT makes the whole object visible at once, so Kernel writes its other whole files
   * (checkpoints) in place instead of via a rename, which S3 does not have.
   */
  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) {
    return false;
  }

  private static void putIfAbsent(FileSystem fs, Path path, byte[] body, String writeId)
      throws IOException {
    FSDataOutputStreamBuilder<?, ?> create = fs.createFile(path);
    create.overwrite(false);
    create.must(CONDITIONAL_CREATE, true);
    create.opt(WRITE_ID_OPTION, writeId);
    // The PUT happens on close, with the whole body.
    try (FSDataOutputStream out = create.build()) {
      out.write(body);
    }
  }

  /**
   * Fails with a named error unless the filesystem sends {@code If-None-Match: *} on this path: an
   * S3A older than 3.4.2, another connector bound to {@code s3a}, or {@value
   * #S3A_CONDITIONAL_ENABLED}{@code =false} would otherwise commit unconditionally.
   */
  static void requireConditionalCreate(FileSystem fs, Path path) throws IOException {
    if (!fs.hasPathCapability(path, CONDITIONAL_CREATE)) {
      throw new IOException(
          S3ConditionalLogStore.class.getSimpleName()
              + ": "
              + fs.getClass().getName()
              + " does not offer the path capability "
              + CONDITIONAL_CREATE
              + " on "
              + path
              + ", so a Delta commit would not be put-if-absent. Use Hadoop S3A 3.4.2 or newer and"
              + " leave lake.hadoop."
              + S3A_CONDITIONAL_ENABLED
              + " at true (docs/object-storage.md)");
    }
  }

  /** Whether the object at {@code path} exists and carries {@code writeId}; false when unknown. */
  private static boolean isOurs(FileSystem fs, Path path, String writeId) {
    try {
      Optional<byte[]> stored = Optional.ofNullable(fs.getXAttr(path, WRITE_ID_XATTR));
      return stored.map(b -> new String(b, StandardCharsets.UTF_8).equals(writeId)).orElse(false);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static java.nio.file.FileAlreadyExistsException alreadyExists(
      Path path, Exception cause) {
    java.nio.file.FileAlreadyExistsException e =
        new java.nio.file.FileAlreadyExistsException(
            path.toString(), null, "another writer created this log entry first");
    e.initCause(cause);
    return e;
  }

  private static void sleepBeforeRetry(int attempt) throws InterruptedIOException {
    try {
      Thread.sleep(50L * attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted between conditional create attempts");
    }
  }

  private static byte[] encode(Iterator<String> actions) {
    StringBuilder text = new StringBuilder();
    while (actions.hasNext()) {
      text.append(actions.next()).append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
