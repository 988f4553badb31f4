package org.oml.lakewriter.delta.sink;

import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.lease.CommitLease;
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;
import org.oml.lakewriter.delta.writer.CommitUnitLimits;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.QuarantineStore;
import org.oml.lakewriter.delta.quarantine.TenantReplay;

/**
 * Builds a {@link DeltaSink}. Either a lake root (the common case: Kernel's default engine over
 * Hadoop's filesystem) or a custom {@link DeltaTableClientFactory} (tests, fault injection), and a
 * frontier listener, which must be named even when it is {@link FrontierListener#NONE}.
 *
 * <pre>{@code
 * DeltaSink sink = DeltaSink.builder()
 *     .lakeRoot("s3a://lake/oml")
 *     .hadoopProperty("fs.s3a.endpoint", "http://minio:9000")
 *     .frontierListener(new JdbcFrontierListener(url, props, "writer-1"))
 *     .build();
 * }</pre>
 */
public final class DeltaSinkBuilder {
  private String lakeRoot;
  private final Map<String, String> hadoopProperties = new TreeMap<>();
  private int logCheckpointInterval = LakeConfig.DEFAULT_LOG_CHECKPOINT_INTERVAL;
  private boolean logCheckpointsStaggered = true;
  private int logCompactionInterval = LakeConfig.DEFAULT_LOG_COMPACTION_INTERVAL;
  private DeltaTableClientFactory tableClientFactory;
  private FrontierListener frontierListener;
  private QuarantineStore.Factory quarantineStore;
  private TenantReplay tenantReplay;
  private CommitRetry commitRetry = CommitRetry.DEFAULT;
  private int maxReplans = 3;
  private CommitUnitLimits unitLimits = CommitUnitLimits.DEFAULT;
  private CommitLease.Factory leaderLease = CommitLease.NO_LEASE;
  private int commitParallelism = DEFAULT_COMMIT_PARALLELISM;
  private int writeParallelism = DEFAULT_WRITE_PARALLELISM;
  private String keyCacheDir;
  private CompactionPolicy compaction = CompactionPolicy.OFF;
  private boolean gold = true;

  /** Tenants of one commit unit committed at the same time, unless {@link #commitParallelism}. */
  public static final int DEFAULT_COMMIT_PARALLELISM = 4;

  /** Tenants of one commit unit written at the same time, unless {@link #writeParallelism}. */
  public static final int DEFAULT_WRITE_PARALLELISM = 2;

  DeltaSinkBuilder() {}

  /**
   * Where tenants in quarantine are recorded. Defaults to the lake itself ({@code
   * <lakeRoot>/_lakewriter/quarantine}) with {@link #lakeRoot}; with a custom table client factory
   * and no store, a table that cannot be used fails the job over instead.
   */
  public DeltaSinkBuilder quarantineStore(QuarantineStore.Factory store) {
    this.quarantineStore = store;
    return this;
  }

  /**
   * The outbox from which a quarantined tenant is replayed (e.g. {@code JdbcTenantReplay}).
   * Without it, quarantined tenants stay held.
   */
  public DeltaSinkBuilder tenantReplay(TenantReplay replay) {
    this.tenantReplay = replay;
    return this;
  }

  /** How the committer retries transient failures before failing over. */
  public DeltaSinkBuilder commitRetry(CommitRetry retry) {
    this.commitRetry = java.util.Objects.requireNonNull(retry, "retry");
    return this;
  }

  /** Automatic re-plans in a row before a quarantine needs an operator ({@code >= 0}). */
  /**
   * When the writer writes the batches gathered since the last checkpoint without waiting for the
   * next one (each table otherwise gets one file and one commit per checkpoint).
   */
  public DeltaSinkBuilder commitUnitLimits(CommitUnitLimits limits) {
    this.unitLimits = java.util.Objects.requireNonNull(limits, "limits");
    return this;
  }

  /**
   * How many tenants of one commit unit the committer commits at the same time, on a pool of its
   * own ({@code >= 1}; 1 commits every table on the committer's thread, in path order). A unit is
   * still done only once all its tables are.
   */
  public DeltaSinkBuilder commitParallelism(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "sink.commit-parallelism must be at least 1, got " + parallelism);
    }
    this.commitParallelism = parallelism;
    return this;
  }

  /**
   * How many tenants of one commit unit the writer writes at the same time (their Parquet files,
   * and the silver and gold MERGEs), on a pool of its own ({@code >= 1}; 1 writes them one after
   * the other on the task's thread). A tenant's own tables are still written one after the other.
   */
  public DeltaSinkBuilder writeParallelism(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "sink.write-parallelism must be at least 1, got " + parallelism);
    }
    this.writeParallelism = parallelism;
    return this;
  }

  /**
   * A local directory where the writer saves the keys of the keyed tables' data files, so that a
   * restart builds its key indexes from there instead of reading every live file's key columns
   * (null, the default: nothing saved). Only a shortcut: a missing, stale or damaged copy costs
   * reads, never a wrong key (docs/key-cache.md).
   */
  public DeltaSinkBuilder keyCacheDir(String dir) {
    this.keyCacheDir = dir;
    return this;
  }

  /**
   * When the committer compacts a table's small files (see {@code docs/compaction.md}); {@link
   * CompactionPolicy#OFF} (the default) never.
   */
  public DeltaSinkBuilder compaction(CompactionPolicy policy) {
    this.compaction = java.util.Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * Whether the writer keeps each tenant's gold tables ({@code gold/lineage}, {@code
   * gold/workarea_memories}, {@code gold/workareas}) in the same commits as bronze and silver
   * (default true); false leaves them unwritten (docs/gold-streaming.md).
   */
  public DeltaSinkBuilder gold(boolean enabled) {
    this.gold = enabled;
    return this;
  }

  public DeltaSinkBuilder maxReplans(int maxReplans) {
    if (maxReplans < 0) {
      throw new IllegalArgumentException("maxReplans must not be negative: " + maxReplans);
    }
    this.maxReplans = maxReplans;
    return this;
  }

  /**
   * The leader lease the committer must hold for every commit (ADR-0003 d2). Without one (the
   * default, {@link CommitLease#NO_LEASE}) nothing stops a second writer: only for tests and tools
   * that own their lake.
   */
  public DeltaSinkBuilder leaderLease(CommitLease.Factory lease) {
    this.leaderLease = java.util.Objects.requireNonNull(lease, "lease");
    return this;
  }

  /** The lake root URI ({@code file:/...}, {@code s3a://...}, {@code abfs://...}). */
  public DeltaSinkBuilder lakeRoot(String lakeRoot) {
    this.lakeRoot = lakeRoot;
    return this;
  }

  /**
   * The whole lake as one {@link LakeConfig}: its root, Hadoop entries, log checkpoint interval and
   * stagger, and log compaction interval, as the job's configuration assembles it for the
   * maintenance commands too.
   */
  public DeltaSinkBuilder lake(LakeConfig lake) {
    return lakeRoot(lake.lakeRoot())
        .hadoopProperties(lake.hadoopProperties())
        .logCheckpointInterval(lake.logCheckpointInterval())
        .logCheckpointsStaggered(lake.logCheckpointsStaggered())
        .logCompactionInterval(lake.logCompactionInterval());
  }

  /** A Hadoop configuration entry for the lake's filesystem (credentials, endpoints, log store). */
  public DeltaSinkBuilder hadoopProperty(String key, String value) {
    hadoopProperties.put(key, value);
    return this;
  }

  public DeltaSinkBuilder hadoopProperties(Map<String, String> properties) {
    hadoopProperties.putAll(properties);
    return this;
  }

  /** The {@code delta.checkpointInterval} the writer keeps on the lakeRoot's tables. */
  public DeltaSinkBuilder logCheckpointInterval(int interval) {
    this.logCheckpointInterval = interval;
    return this;
  }

  /**
   * Whether each table's log checkpoints are at a phase of its own within the interval (the
   * default) or at its multiples.
   */
  public DeltaSinkBuilder logCheckpointsStaggered(boolean staggered) {
    this.logCheckpointsStaggered = staggered;
    return this;
  }

  /** Every how many commits the writer writes a log compaction file (0: none). */
  public DeltaSinkBuilder logCompactionInterval(int interval) {
    this.logCompactionInterval = interval;
    return this;
  }

  /** Replaces the Kernel client, e.g. with a decorator that injects faults. */
  public DeltaSinkBuilder tableClientFactory(DeltaTableClientFactory factory) {
    this.tableClientFactory = factory;
    return this;
  }

  /** Where the committer reports the frontier; {@link FrontierListener#NONE} for nowhere. */
  public DeltaSinkBuilder frontierListener(FrontierListener listener) {
    this.frontierListener = listener;
    return this;
  }

  public DeltaSink build() {
    if (lakeRoot == null && tableClientFactory == null) {
      throw new IllegalStateException(
          "DeltaSink needs lakeRoot(\"file:/...\" or \"s3a://...\"): every tenant's tables live"
              + " under it, and each start recovers the tables' txn versions from it");
    }
    if (lakeRoot != null && tableClientFactory != null) {
      throw new IllegalStateException(
          "DeltaSink got both lakeRoot and tableClientFactory: set one, so that there is exactly"
              + " one lake the writer recovers from and commits to");
    }
    if (tableClientFactory != null && !hadoopProperties.isEmpty()) {
      throw new IllegalStateException(
          "hadoopProperty(..) only configures the lakeRoot client; a custom tableClientFactory"
              + " brings its own configuration");
    }
    if (frontierListener == null) {
      throw new IllegalStateException(
          "DeltaSink needs frontierListener(..): it is what `lakewriter status` shows as progress;"
              + " pass FrontierListener.NONE to publish no frontier on purpose");
    }
    LakeConfig lake =
        lakeRoot == null
            ? null
            : new LakeConfig(lakeRoot, hadoopProperties)
                .withLogCheckpointInterval(logCheckpointInterval)
                .withLogCheckpointsStaggered(logCheckpointsStaggered)
                .withLogCompactionInterval(logCompactionInterval);
    DeltaTableClientFactory clients =
        tableClientFactory != null ? tableClientFactory : new KernelTableClientFactory(lake);
    QuarantineStore.Factory store =
        quarantineStore != null
            ? quarantineStore
            : lake != null ? LakeQuarantineStore.factory(lake) : null;
    return new DeltaSink(
        clients,
        frontierListener,
        store,
        tenantReplay,
        commitRetry,
        maxReplans,
        unitLimits,
        leaderLease,
        commitParallelism,
        writeParallelism,
        compaction,
        lakeRoot != null ? lakeRoot : "factory@" + System.identityHashCode(clients),
        gold,
        keyCacheDir);
  }
}
