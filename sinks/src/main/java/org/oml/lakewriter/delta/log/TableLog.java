package org.oml.lakewriter.delta.log;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.DeltaTableClient;

/**
 * The commits of one Delta table as its {@code _delta_log/NNNNNNNNNNNNNNNNNNNN.json} files hold
 * them, read with Hadoop's {@code FileSystem} (so {@code s3a://} works as {@code file:} does) and
 * parsed as the Delta protocol defines them: {@code add}, {@code remove} (with {@code
 * deletionTimestamp} and {@code dataChange}), {@code txn} and {@code commitInfo}. For {@code
 * lakewriter history} and {@code lakewriter maintain vacuum}, which need every version's actions,
 * something Kernel's public API does not give.
 *
 * <p>Read-only. A commit file that Kernel's log cleanup ({@code delta.logRetentionDuration}) has
 * deleted is simply absent: {@link #commits()} starts at the oldest commit file left.
 *
 * <p>A commit's time is its log file's modification time, which is the time Delta's time travel by
 * timestamp uses on tables without in-commit timestamps (ours have none).
 */
public final class TableLog {
  private static final Pattern COMMIT_FILE = Pattern.compile("\\d{20}\\.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path tableRoot;

  private TableLog(FileSystem fs, Path tableRoot) {
    this.fs = fs;
    this.tableRoot = tableRoot;
  }

  /** The log of the table at {@code tableRoot} (a qualified URI such as {@code file:/lake/t}). */
  public static TableLog open(Configuration conf, String tableRoot) throws IOException {
    Path root = new Path(tableRoot);
    return new TableLog(root.getFileSystem(conf), root);
  }

  /** The table's root directory. */
  public Path tableRoot() {
    return tableRoot;
  }

  public FileSystem fileSystem() {
    return fs;
  }

  /** One add or remove action: its path as the log holds it, and its flags. */
  public record FileAction(String path, boolean dataChange, long deletionTimestamp, long size) {
    public FileAction {
      Objects.requireNonNull(path, "path");
    }
  }

  /**
   * One commit: its version, time, the {@code oml-lakewriter} txn version it records ({@code -1}
   * if it records none), the {@code commitInfo.operation} (or null), and its file actions.
   */
  public record Commit(
      long version,
      Instant time,
      long txnVersion,
      String operation,
      List<FileAction> adds,
      List<FileAction> removes) {
    public Commit {
      adds = List.copyOf(adds);
      removes = List.copyOf(removes);
    }

    /** True if every file action of the commit says {@code dataChange = false} (a compaction). */
    public boolean rearrangesOnly() {
      return !(adds.isEmpty() && removes.isEmpty())
          && adds.stream().noneMatch(FileAction::dataChange)
          && removes.stream().noneMatch(FileAction::dataChange);
    }
  }

  /** Every commit whose log file is still there, in version order; none if there is no log. */
  public List<Commit> commits() throws IOException {
    Path log = new Path(tableRoot, "_delta_log");
    FileStatus[] files;
    try {
      files = fs.listStatus(log);
    } catch (FileNotFoundException e) {
      return List.of();
    }
    List<FileStatus> commitFiles = new ArrayList<>();
    for (FileStatus f : files) {
      if (f.isFile() && COMMIT_FILE.matcher(f.getPath().getName()).matches()) {
        commitFiles.add(f);
      }
    }
    commitFiles.sort((a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    List<Commit> commits = new ArrayList<>(commitFiles.size());
    for (FileStatus f : commitFiles) {
      commits.add(read(f));
    }
    return commits;
  }

  /** The commit of one version; empty if its log file is not there (never written, or cleaned up). */
  public Optional<Commit> commit(long version) throws IOException {
    Path file = new Path(new Path(tableRoot, "_delta_log"), String.format("%020d.json", version));
    FileStatus status;
    try {
      status = fs.getFileStatus(file);
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
    return Optional.of(read(status));
  }

  /**
   * The absolute path of a file an action names: a relative path (the protocol's usual case,
   * percent-encoded) is under the table root; an absolute URI is kept as it is.
   */
  public Path resolve(String actionPath) {
    URI uri;
    try {
      uri = new URI(actionPath);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("a log action names an invalid path: " + actionPath, e);
    }
    return uri.isAbsolute() ? new Path(uri) : new Path(tableRoot, new Path(uri));
  }

  private Commit read(FileStatus file) throws IOException {
    String name = file.getPath().getName();
    long version = Long.parseLong(name.substring(0, name.indexOf('.')));
    long txn = -1;
    String operation = null;
    List<FileAction> adds = new ArrayList<>();
    List<FileAction> removes = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(fs.open(file.getPath()), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode action = JSON.readTree(line);
        if (action.has("add")) {
          adds.add(fileAction(action.get("add")));
        } else if (action.has("remove")) {
          removes.add(fileAction(action.get("remove")));
        } else if (action.has("txn")
            && DeltaTableClient.APP_ID.equals(action.get("txn").path("appId").asText())) {
          txn = action.get("txn").path("version").asLong(-1);
        } else if (action.has("commitInfo")) {
          JsonNode op = action.get("commitInfo").get("operation");
          operation = op == null || op.isNull() ? null : op.asText();
        }
      }
    }
    return new Commit(
        version, Instant.ofEpochMilli(file.getModificationTime()), txn, operation, adds, removes);
  }

  private static FileAction fileAction(JsonNode a) {
    return new FileAction(
        a.path("path").asText(),
        a.path("dataChange").asBoolean(true),
        a.path("deletionTimestamp").asLong(-1),
        a.path("size").asLong(-1));
  }
}
