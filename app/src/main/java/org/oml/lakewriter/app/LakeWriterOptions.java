package org.oml.lakewriter.app;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.sink.DeltaSinkBuilder;
import org.oml.lakewriter.delta.writer.CommitUnitLimits;
import org.oml.lakewriter.jdbc.JdbcSettings;
import org.oml.lakewriter.retry.BreakerPolicy;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.configuration.description.Formatter;
import org.apache.flink.configuration.description.TextElement.TextStyle;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.cdc.CdcTuning;

/**
 * Every option of the lake writer, with its description. Any key that is not one of these (or
 * under {@link #HADOOP_PREFIX}) is rejected at start, so a typo never silently falls back to a
 * default.
 */
public final class LakeWriterOptions {
  /** Keys under this prefix go, without it, to the Hadoop configuration of the lake filesystem. */
  public static final String HADOOP_PREFIX = "lake.hadoop.";

  public static final ConfigOption<String> POSTGRES_URL =
      ConfigOptions.key("postgres.url")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "JDBC URL of the PostgreSQL system of record, e.g."
                  + " jdbc:postgresql://db:5432/oml. Host, port and database are also what the"
                  + " CDC source connects to.");

  public static final ConfigOption<String> POSTGRES_USER =
      ConfigOptions.key("postgres.user")
          .stringType()
          .defaultValue("postgres")
          .withDescription("User with REPLICATION and SELECT on the outbox.");

  public static final ConfigOption<String> POSTGRES_PASSWORD_ENV =
      ConfigOptions.key("postgres.password-env")
          .stringType()
          .defaultValue("OML_PG_PASSWORD")
          .withDescription(
              "Name of the environment variable that holds the password. The password itself"
                  + " is never an option, so it is never printed or stored in a config file.");

  public static final ConfigOption<String> POSTGRES_PASSWORD_FILE =
      ConfigOptions.key("postgres.password-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "File whose first line is the password; takes precedence over postgres.password-env.");

  public static final ConfigOption<String> POSTGRES_SCHEMA =
      ConfigOptions.key("postgres.schema")
          .stringType()
          .defaultValue("public")
          .withDescription("Schema of oml_outbox and oml_lake_horizon.");

  public static final ConfigOption<String> SLOT =
      ConfigOptions.key("postgres.slot")
          .stringType()
          .defaultValue("oml_lakewriter")
          .withDescription(
              "Logical replication slot of the CDC source. One writer, one slot; the snapshot"
                  + " phase also opens a temporary extra slot.");

  public static final ConfigOption<String> PUBLICATION =
      ConfigOptions.key("postgres.publication")
          .stringType()
          .defaultValue("oml_lake_pub")
          .withDescription(
              "Publication over oml_outbox and oml_lake_horizon, created by `lakewriter init-db`.");

  public static final ConfigOption<String> WRITER_ID =
      ConfigOptions.key("writer.id")
          .stringType()
          .defaultValue("oml_lakewriter")
          .withDescription("This writer's row in oml_lake_horizon and oml_lake_frontier.");

  public static final ConfigOption<String> LAKE_ROOT =
      ConfigOptions.key("lake.root")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Root of the lake: file:///..., s3a://bucket/prefix or abfs://container@account/...;"
                  + " tables live under <lake.root>/<tenant>/.");

  public static final ConfigOption<Integer> LOG_CHECKPOINT_INTERVAL =
      ConfigOptions.key("lake.log-checkpoint-interval")
          .intType()
          .defaultValue(LakeConfig.DEFAULT_LOG_CHECKPOINT_INTERVAL)
          .withDescription(
              "The delta.checkpointInterval of the writer's tables: a Parquet checkpoint of a"
                  + " table's log every this many commits. The writer creates its tables with it"
                  + " and sets it on a table that has another value, in its next data commit to"
                  + " that table. The"
                  + " writer commits each table once per Flink checkpoint, and each log checkpoint"
                  + " rewrites the table's live state (with the removes since the previous one),"
                  + " so a low value costs the writer time on every few checkpoints; a reader"
                  + " without a cached snapshot replays up to this many commit files on top of the"
                  + " checkpoint (docs/scale.md, \"Log checkpoints every 100 commits\").");

  public static final ConfigOption<Boolean> LOG_CHECKPOINT_STAGGER =
      ConfigOptions.key("lake.log-checkpoint-stagger")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "true: each table writes its log checkpoints at a phase of its own within"
                  + " lake.log-checkpoint-interval (at the versions v with v + phase divisible by"
                  + " the interval; the phase is fixed by the table's path), so that the tables"
                  + " written in the same Flink checkpoints do not all checkpoint in the same one."
                  + " false: at the multiples of the interval, where Delta's own writers put them."
                  + " Readers find a checkpoint at any version (docs/scale.md, \"Staggered log"
                  + " checkpoints\").");

  public static final ConfigOption<Integer> LOG_COMPACTION_INTERVAL =
      ConfigOptions.key("lake.log-compaction-interval")
          .intType()
          .defaultValue(LakeConfig.DEFAULT_LOG_COMPACTION_INTERVAL)
          .withDescription(
              "Every this many commits to a table, the writer also writes a Delta log compaction"
                  + " file (<first>.<last>.compacted.json, the reconciled actions of those"
                  + " commits), which Delta Kernel reads instead of those commit files: a reader"
                  + " without a cached snapshot then reads at most about three times this many log"
                  + " files after the last checkpoint instead of up to lake.log-checkpoint-interval"
                  + " (on object storage each is a GET). An engine that does not support them"
                  + " ignores them. Written off the commit path. 0: none. The writer deletes them"
                  + " with the rest of the log past delta.logRetentionDuration (docs/scale.md,"
                  + " \"Log compaction every 10 commits\").");

  public static final ConfigOption<Integer> BATCH_MAX_ROWS =
      ConfigOptions.key("batch.max-rows")
          .intType()
          .defaultValue(10_000)
          .withDescription("Row cap of one batch; the cut depends only on rows, never on time.");

  public static final ConfigOption<MemorySize> BATCH_MAX_BYTES =
      ConfigOptions.key("batch.max-bytes")
          .memoryType()
          .defaultValue(MemorySize.parse("64mb"))
          .withDescription("Byte cap of one batch (estimated row sizes, bodies included).");

  public static final ConfigOption<MemorySize> BODY_MAX_BYTES =
      ConfigOptions.key("body.max-bytes")
          .memoryType()
          .defaultValue(MemorySize.parse("16mb"))
          .withDescription("A body above this size is dead-lettered as BODY_TOO_LARGE.");

  public static final ConfigOption<Duration> TICK_PERIOD =
      ConfigOptions.key("horizon.tick-period")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription("How often the horizon tick runs; bounds the frontier's idle lag.");

  public static final ConfigOption<Duration> MIN_TICK_SPACING =
      ConfigOptions.key("horizon.min-tick-spacing")
          .durationType()
          .defaultValue(org.oml.lakewriter.horizon.HorizonTicker.DEFAULT_MIN_SPACING)
          .withDescription(
              "While rows wait above the horizon, the next horizon tick runs this soon after the"
                  + " previous one instead of a whole horizon.tick-period later (one cheap SQL"
                  + " call a tick), so the tick adds at most this to a row's frontier lag under"
                  + " load; the tick period then bounds only the idle lag. 0 turns early ticks"
                  + " off (tick on the period only).");

  public static final ConfigOption<MemorySize> CUT_ROW_CACHE =
      ConfigOptions.key("cut.row-cache")
          .memoryType()
          .defaultValue(
              new MemorySize(org.oml.lakewriter.cut.BatchCutFunction.DEFAULT_ROW_CACHE_BYTES))
          .withDescription(
              "Bytes of the rows the cut buffers that it also keeps on the heap, so that the"
                  + " turn that emits them does not read them back from the state backend (on"
                  + " RocksDB a read deserialises the whole row). A row held there is written to"
                  + " state only if it is still buffered when a checkpoint is taken, so a row that"
                  + " arrives and leaves between two checkpoints never touches the state backend."
                  + " Every checkpoint holds every buffered row: a restored job reads them from"
                  + " state. Rows beyond the budget (a long-open transaction's backlog) are"
                  + " written when they arrive and read from state. 0 turns it off.");

  public static final ConfigOption<Integer> CUT_SNAPSHOT_PHASE_ROWS =
      ConfigOptions.key("cut.snapshot-phase-rows")
          .intType()
          .defaultValue(org.oml.lakewriter.cut.BatchCutFunction.DEFAULT_SNAPSHOT_PHASE_ROWS)
          .withDescription(
              "Rows the cut holds during the CDC snapshot phase (a first start over a full"
                  + " outbox) before it cuts them on its own, on the horizon ticker's stable seq"
                  + " checked against the outbox's keys, instead of holding the whole outbox"
                  + " until the first horizon streams in: the state stays about this size and the"
                  + " lake fills while the snapshot reads (docs/cut-and-tick.md, \"Cutting during"
                  + " the snapshot\"). Each such cut makes commits of its own, and each later"
                  + " retraction of their rows a copy-on-write: smaller values cost the writer"
                  + " more CPU. 0 turns it off.");

  public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
      ConfigOptions.key("checkpoint.interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "Flink checkpoint interval. Delta commits happen when a checkpoint completes, so"
                  + " this bounds the lake's freshness.");

  public static final ConfigOption<Duration> CHECKPOINT_TIMEOUT =
      ConfigOptions.key("checkpoint.timeout")
          .durationType()
          .defaultValue(Duration.ofMinutes(2))
          .withDescription(
              "How long a checkpoint may take before it fails and the job restarts from the last"
                  + " completed one. A checkpoint that can never complete (a lost acknowledgement)"
                  + " stops every commit until then: Flink's own default of 10 minutes would stall"
                  + " the lake that long.");

  public static final ConfigOption<String> STATE_BACKEND =
      ConfigOptions.key("state.backend")
          .stringType()
          .defaultValue("rocksdb")
          .withDescription(
              "rocksdb (spills to disk: a long-open transaction grows the buffer) or hashmap.");

  public static final ConfigOption<String> STATE_DIR =
      ConfigOptions.key("state.dir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "For `lakewriter run`: where checkpoints, savepoints and the job's identity file go."
                  + " Default: .lakewriter/state/<writer.id> under the working directory, so two"
                  + " writers started from one directory never share it. A restore point whose"
                  + " identity (database, slot, writer id, lake root) differs is refused. A session"
                  + " cluster uses its own state.checkpoints.dir.");

  public static final ConfigOption<String> KEYS_LOOKUP_QUERY =
      ConfigOptions.key("keys.lookup-query")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "SQL run on the outbox database for each batch's promotions: one text[] parameter"
                  + " (their data-key ids), returning the ids the key registry knows, e.g."
                  + " SELECT key_id FROM oml_data_key WHERE key_id = ANY(?). A promotion whose"
                  + " key is unknown (UNKNOWN_DATA_KEY) is retried within the retry budget, then"
                  + " dead-lettered. A lookup that fails (DEPENDENCY_UNAVAILABLE) is the"
                  + " registry's fault: its circuit breaker (breaker.*) holds the cut and no"
                  + " row's budget is spent. Unset: no check.");

  public static final ConfigOption<Duration> KEYS_LOOKUP_TIMEOUT =
      ConfigOptions.key("keys.lookup-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(2))
          .withDescription(
              "statement_timeout of the key lookup; a lookup that takes longer is a failed"
                  + " attempt (the cut's thread waits for it).");

  public static final ConfigOption<Integer> RETRY_MAX_ATTEMPTS =
      ConfigOptions.key("retry.max-attempts")
          .intType()
          .defaultValue(RetryBudget.DEFAULT.maxAttempts())
          .withDescription(
              "Attempts of a row that fails transiently before it is dead-lettered. The rows"
                  + " behind it wait meanwhile (the cut is in seq order).");

  public static final ConfigOption<Duration> RETRY_MAX_DURATION =
      ConfigOptions.key("retry.max-duration")
          .durationType()
          .defaultValue(RetryBudget.DEFAULT.maxDuration())
          .withDescription(
              "No further attempt once this long has passed since a row's first failure.");

  public static final ConfigOption<Duration> RETRY_INITIAL_BACKOFF =
      ConfigOptions.key("retry.initial-backoff")
          .durationType()
          .defaultValue(RetryBudget.DEFAULT.initialBackoff())
          .withDescription("Wait after the first failed attempt; doubles after each one.");

  public static final ConfigOption<Duration> RETRY_MAX_BACKOFF =
      ConfigOptions.key("retry.max-backoff")
          .durationType()
          .defaultValue(RetryBudget.DEFAULT.maxBackoff())
          .withDescription("Upper bound of the wait between attempts.");

  // ---- Delta sink: commit retries and the tenants' quarantine (docs/quarantine.md) ----

  public static final ConfigOption<Duration> COMMIT_RETRY_MAX_DURATION =
      ConfigOptions.key("sink.commit-retry.max-duration")
          .durationType()
          .defaultValue(Duration.ofMinutes(2))
          .withDescription(
              "How long the Delta committer retries a transient failure (object store, network,"
                  + " a commit whose outcome is unknown) of one commit before the job fails over."
                  + " Later batches wait meanwhile, so none overtakes it; 0 fails over at once.");

  public static final ConfigOption<Duration> COMMIT_RETRY_INITIAL_BACKOFF =
      ConfigOptions.key("sink.commit-retry.initial-backoff")
          .durationType()
          .defaultValue(Duration.ofMillis(100))
          .withDescription(
              "Wait before the committer's second attempt; doubles after each failed one.");

  public static final ConfigOption<Duration> COMMIT_RETRY_MAX_BACKOFF =
      ConfigOptions.key("sink.commit-retry.max-backoff")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription("Upper bound of the committer's wait between attempts.");

  public static final ConfigOption<Integer> MAX_ROWS_PER_COMMIT =
      ConfigOptions.key("sink.max-rows-per-commit")
          .intType()
          .defaultValue(CommitUnitLimits.DEFAULT.maxRows())
          .withDescription(
              "The batches cut between two checkpoints are committed together: one Parquet file"
                  + " and one Delta commit per table per checkpoint, with txn version = the end of"
                  + " the last batch. When they hold this many rows (a restart catching up), they"
                  + " are written at once and the next batches form a further commit of the same"
                  + " checkpoint; this bounds the writer's memory.");

  public static final ConfigOption<MemorySize> MAX_BYTES_PER_COMMIT =
      ConfigOptions.key("sink.max-bytes-per-commit")
          .memoryType()
          .defaultValue(new MemorySize(CommitUnitLimits.DEFAULT.maxBytes()))
          .withDescription(
              "Like sink.max-rows-per-commit, in estimated bytes of the gathered rows (bodies"
                  + " included): the bound on the writer's memory between two checkpoints.");

  public static final ConfigOption<Integer> WRITE_PARALLELISM =
      ConfigOptions.key("sink.write-parallelism")
          .intType()
          .defaultValue(DeltaSinkBuilder.DEFAULT_WRITE_PARALLELISM)
          .withDescription(
              "How many tenants of one commit unit (checkpoint) the writer writes at the same"
                  + " time at the barrier (their Parquet files, silver and gold MERGEs), on a"
                  + " bounded pool of its own; a tenant's own tables are still written one after"
                  + " the other. Up to the task manager's free cores; on object storage, where a"
                  + " file's upload waits on the network, more. 1: every tenant on the task's"
                  + " thread.");

  public static final ConfigOption<String> KEY_CACHE_DIR =
      ConfigOptions.key("sink.key-cache.dir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A directory on the task manager's local disk where the writer saves the keys of"
                  + " the keyed tables' data files (silver memories, gold lineage and workarea"
                  + " memories) between runs, so that a restart builds its key indexes from there"
                  + " instead of reading every live file's key columns. A missing, stale or damaged"
                  + " copy costs reads, never a wrong key. `lakewriter run`: <state.dir>/key-cache"
                  + " unless set; a job submitted to a session cluster saves nothing unless set.");

  public static final ConfigOption<Integer> COMMIT_PARALLELISM =
      ConfigOptions.key("sink.commit-parallelism")
          .intType()
          .defaultValue(DeltaSinkBuilder.DEFAULT_COMMIT_PARALLELISM)
          .withDescription(
              "How many tenants of one commit unit (checkpoint) the committer commits at the same"
                  + " time, on a bounded pool of its own; a tenant's own tables still commit one"
                  + " after the other. The frontier advances only once every table of the unit"
                  + " has committed, and a table that fails fails the whole unit, whose replay"
                  + " skips the tables already committed. 1: every table on the committer's"
                  + " thread, in path order.");

  public static final ConfigOption<Integer> QUARANTINE_MAX_REPLANS =
      ConfigOptions.key("sink.quarantine.max-replans")
          .intType()
          .defaultValue(3)
          .withDescription(
              "A tenant whose batch no longer matches its table (e.g. an OPTIMIZE by another"
                  + " engine between write and commit) is re-planned from the outbox"
                  + " automatically this many times in a row; after that its quarantine waits"
                  + " for `lakewriter quarantine release --tenant T`.");

  public static final ConfigOption<Integer> QUARANTINE_REPLAY_PAGE_ROWS =
      ConfigOptions.key("sink.quarantine.replay-page-rows")
          .intType()
          .defaultValue(1000)
          .withDescription(
              "Rows per query when a quarantined tenant's rows are read back from the outbox.");

  // --- Side connections: timeouts (issue 11 items 8 and 14) ---

  public static final ConfigOption<Duration> POSTGRES_CONNECT_TIMEOUT =
      ConfigOptions.key("postgres.connect-timeout")
          .durationType()
          .defaultValue(JdbcSettings.DEFAULT_CONNECT_TIMEOUT)
          .withDescription(
              "Connect (and login) timeout of every side connection to PostgreSQL: horizon"
                  + " ticker, completeness check, key check, frontier, dead-letter journal,"
                  + " breaker status. A connectTimeout parameter in postgres.url wins.");

  public static final ConfigOption<Duration> POSTGRES_SOCKET_TIMEOUT =
      ConfigOptions.key("postgres.socket-timeout")
          .durationType()
          .defaultValue(JdbcSettings.DEFAULT_SOCKET_TIMEOUT)
          .withDescription(
              "Socket read timeout of every side connection to PostgreSQL: a half-open"
                  + " connection fails with SQLState 08006 after this long instead of blocking the"
                  + " task thread until checkpoints time out. Keep it above the slowest statement"
                  + " (keys.lookup-timeout, the horizon tick). A socketTimeout parameter in"
                  + " postgres.url wins.");

  // --- Dependency circuit breaker (issue 11 item 7) ---

  public static final ConfigOption<Integer> BREAKER_FAILURE_THRESHOLD =
      ConfigOptions.key("breaker.failure-threshold")
          .intType()
          .defaultValue(BreakerPolicy.DEFAULT.failureThreshold())
          .withDescription(
              "Failed calls of a dependency (the key registry: timeout, lost connection, SQL"
                  + " error), among the last this many, that open its circuit breaker. While it is"
                  + " open the cut holds before the first row that needs the dependency, the"
                  + " rows' retry budgets are not spent, and status shows the breaker.");

  public static final ConfigOption<Duration> BREAKER_OPEN_WAIT =
      ConfigOptions.key("breaker.open-wait")
          .durationType()
          .defaultValue(BreakerPolicy.DEFAULT.openWait())
          .withDescription(
              "How long an open breaker waits before one probe call (half-open); a probe that"
                  + " succeeds closes it, one that fails opens it again.");

  // --- Dead-letter journal retries (issue 11 item 9) ---

  public static final ConfigOption<Duration> JOURNAL_RETRY_WINDOW =
      ConfigOptions.key("journal.retry-window")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "How long the dead-letter journal's committer retries an insert into PostgreSQL,"
                  + " backing off, before it gives the checkpoint's records up: the journal is"
                  + " not the authority (the lake's dead_letter tables are), so it never fails the"
                  + " job. Given-up records are counted (journalRecordsBehind), logged as"
                  + " JOURNAL_BEHIND, and restored by `lakewriter dead-letters sync`.");

  // --- Leader lease (ADR-0003 d2; docs/leader-lease.md) ---

  public static final ConfigOption<Duration> LEASE_DURATION =
      ConfigOptions.key("lease.duration")
          .durationType()
          .defaultValue(Duration.ofSeconds(30))
          .withDescription(
              "How long the leader lease of the lake lasts after each renewal, in PostgreSQL's"
                  + " time (table oml_lake_lease). A writer killed without a clean stop blocks"
                  + " the next one for at most this long.");

  public static final ConfigOption<Duration> LEASE_RENEW_PERIOD =
      ConfigOptions.key("lease.renew-period")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription(
              "How often the running job renews its leader lease. Must be shorter than"
                  + " lease.duration - lease.safety-margin; a holder that missed two renewals"
                  + " counts as not live.");

  public static final ConfigOption<Duration> LEASE_SAFETY_MARGIN =
      ConfigOptions.key("lease.safety-margin")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "The committer stops committing once lease.duration minus this margin has passed,"
                  + " on its own monotonic clock, since it sent its last successful renewal:"
                  + " room for a commit in flight, a GC pause and clock-rate error before"
                  + " another writer can take the lease.");

  public static final ConfigOption<Duration> LEASE_WAIT =
      ConfigOptions.key("lease.wait")
          .durationType()
          .defaultValue(Duration.ofMinutes(2))
          .withDescription(
              "How long `lakewriter run` waits for the leader lease of a writer that stopped"
                  + " renewing (e.g. killed a moment ago) to expire, saying who holds it and"
                  + " until when. A holder seen renewing is alive: the start is refused at once"
                  + " (LEASE_HELD). 0 refuses without waiting.");

  // --- start-up: a slot still held by a dead writer's walsender (issue 11, item 12) ---

  public static final ConfigOption<Duration> SLOT_WAIT =
      ConfigOptions.key("postgres.slot-wait")
          .durationType()
          .defaultValue(Duration.ofSeconds(120))
          .withDescription(
              "How long `run` waits for a replication slot that is held by a process which is not a"
                  + " live writer: the walsender of a killed writer, still waiting for open"
                  + " transactions to let its slot creation finish, or for wal_sender_timeout"
                  + " (60 s by default) to notice that its client is gone. The wait prints the"
                  + " holder's pid, state, wait event and query. A slot that a live writer streams"
                  + " from is refused at once. 0 s: never wait.");

  // --- Metrics: the Prometheus endpoint of `lakewriter run` (issue 17; docs/metrics.md) ---

  public static final ConfigOption<String> METRICS_PROMETHEUS_PORT =
      ConfigOptions.key("metrics.prometheus.port")
          .stringType()
          .defaultValue("9249-9259")
          .withDescription(
              "Port of the Prometheus endpoint (http://host:PORT/metrics) that `lakewriter run`"
                  + " opens with Flink's Prometheus reporter: one port (9249) or a range"
                  + " (9249-9259, the first free one is taken and printed). `none` or 0 opens"
                  + " none. A session cluster ignores it: its config.yaml configures the reporter"
                  + " (flink-conf/config.yaml).");
  // ---- `lakewriter run` on the command line (docs/cli.md) ----

  public static final ConfigOption<Integer> SAVEPOINTS_RETAINED =
      ConfigOptions.key("state.savepoints.retained")
          .intType()
          .defaultValue(3)
          .withDescription(
              "For `lakewriter run`: how many of the savepoints it took on SIGTERM (under"
                  + " <state.dir>/savepoints) it keeps, newest first; older ones are deleted after"
                  + " each successful stop. The restore point the next start will use is never"
                  + " deleted. At least 1.");

  public static final ConfigOption<Duration> PROGRESS_INTERVAL =
      ConfigOptions.key("run.progress-interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "For `lakewriter run`: how often it prints a progress line (frontier, rows"
                  + " committed by this run, lag behind the outbox head, age of the last commit),"
                  + " read from PostgreSQL (oml_lake_frontier). A line is printed when the frontier"
                  + " or the head moved, and at least once a minute. 0 s: no progress lines.");

  public static final ConfigOption<Integer> CDC_SNAPSHOT_SPLIT_SIZE =
      ConfigOptions.key("cdc.snapshot.split-size")
          .intType()
          .defaultValue(CdcTuning.DEFAULT.snapshotSplitSize())
          .withDescription(
              "Rows per split of the first start's snapshot of the outbox (Flink CDC's chunk"
                  + " size). Each split opens its own connection and primes Debezium's type"
                  + " registry; larger splits cost less per row (docs/scale.md). Bounds nothing"
                  + " in memory: a split is read in fetches of cdc.snapshot.fetch-size rows.");

  public static final ConfigOption<Integer> CDC_SNAPSHOT_FETCH_SIZE =
      ConfigOptions.key("cdc.snapshot.fetch-size")
          .intType()
          .defaultValue(CdcTuning.DEFAULT.snapshotFetchSize())
          .withDescription("Rows per JDBC fetch while a snapshot split is read.");

  public static final ConfigOption<Integer> CDC_MAX_BATCH_SIZE =
      ConfigOptions.key("cdc.max-batch-size")
          .intType()
          .defaultValue(CdcTuning.DEFAULT.maxBatchSize())
          .withDescription(
              "Change records Debezium hands to the source per poll (Debezium's"
                  + " max.batch.size).");

  public static final ConfigOption<Integer> CDC_MAX_QUEUE_SIZE =
      ConfigOptions.key("cdc.max-queue-size")
          .intType()
          .defaultValue(CdcTuning.DEFAULT.maxQueueSize())
          .withDescription(
              "Change records Debezium queues before its replication reader waits (Debezium's"
                  + " max.queue.size); larger than cdc.max-batch-size. Each holds a row, body"
                  + " included: this bounds the source's heap.");

  public static final ConfigOption<Duration> CDC_POLL_INTERVAL =
      ConfigOptions.key("cdc.poll-interval")
          .durationType()
          .defaultValue(CdcTuning.DEFAULT.pollInterval())
          .withDescription(
              "How long Debezium waits for a batch to fill before it hands over what it has"
                  + " (Debezium's poll.interval.ms); under a light load it adds to the frontier"
                  + " lag.");

  // ---- Compaction inside the job (issue 14, docs/compaction.md) ----

  public static final ConfigOption<Boolean> COMPACT_ENABLED =
      ConfigOptions.key("maintenance.compact.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Whether the committer compacts a table's small files after a checkpoint's commits:"
                  + " one Delta commit per table with dataChange=false and no txn action, never"
                  + " touching a file a planned retraction rewrites (docs/compaction.md).");

  public static final ConfigOption<Integer> COMPACT_MIN_FILES =
      ConfigOptions.key("maintenance.compact.min-files")
          .intType()
          .defaultValue(CompactionPolicy.OFF.minFiles())
          .withDescription(
              "Small files a table must have before it is compacted (at least 2): the bound on a"
                  + " table's small files between two compactions.");

  public static final ConfigOption<MemorySize> COMPACT_SMALL_FILE_SIZE =
      ConfigOptions.key("maintenance.compact.small-file-size")
          .memoryType()
          .defaultValue(new MemorySize(CompactionPolicy.OFF.smallFileBytes()))
          .withDescription(
              "A data file below this size is small and may be compacted; at most"
                  + " maintenance.compact.target-file-size.");

  public static final ConfigOption<MemorySize> COMPACT_TARGET_FILE_SIZE =
      ConfigOptions.key("maintenance.compact.target-file-size")
          .memoryType()
          .defaultValue(new MemorySize(CompactionPolicy.OFF.targetFileBytes()))
          .withDescription(
              "The size of the files a compaction writes: small files are grouped into runs of at"
                  + " most this many bytes, each rewritten as one file.");

  public static final ConfigOption<MemorySize> COMPACT_KEYED_TARGET_FILE_SIZE =
      ConfigOptions.key("maintenance.compact.keyed-target-file-size")
          .memoryType()
          .defaultValue(new MemorySize(CompactionPolicy.KEYED_TARGET_FILE_BYTES))
          .withDescription(
              "The size of the files a compaction writes for the tables keyed on (artifact_id,"
                  + " version): silver/memories, gold/lineage and gold/workarea_memories. A"
                  + " retraction or a re-promotion rewrites the whole file that holds its key, so"
                  + " this caps what one such row costs, however large the table grows. Their"
                  + " files below half of it are small. Used only when below"
                  + " maintenance.compact.target-file-size (docs/compaction.md, \"Keyed tables\").");

  public static final ConfigOption<Duration> COMPACT_BUDGET =
      ConfigOptions.key("maintenance.compact.budget-per-checkpoint")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "Time the committer may spend compacting after one checkpoint's commits; tables"
                  + " idle in that checkpoint go first, and a table is started only within the"
                  + " budget. The rest wait for the next checkpoint. Default: a fifth of"
                  + " checkpoint.interval (2 s at its default), so compaction never takes more"
                  + " than a fifth of the writer's time.");

  // --- lake maintenance: VACUUM (issue 14, docs/erasure.md) ---

  public static final ConfigOption<Duration> VACUUM_MIN_RETENTION =
      ConfigOptions.key("maintain.vacuum.min-retention")
          .durationType()
          .defaultValue(Duration.ofDays(7))
          .withDescription(
              "The shortest retention `lakewriter maintain vacuum --retain` accepts (Delta's"
                  + " delta.deletedFileRetentionDuration default). VACUUM deletes the files removed"
                  + " longer ago than the retention, so a reader or writer holding a snapshot older"
                  + " than it could lose a file; lower it only in tests. The retention is part of"
                  + " the erasure bound (docs/erasure.md).");

  // --- gold zone (issue 15, docs/gold-streaming.md) ---

  public static final ConfigOption<Boolean> GOLD_ENABLED =
      ConfigOptions.key("gold.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Whether the writer keeps each tenant's gold tables (gold/lineage,"
                  + " gold/workarea_memories, gold/workareas) in the same exactly-once commits as"
                  + " bronze and silver. false writes no gold table at all (they fall behind;"
                  + " `lakewriter maintain rebuild-gold` rebuilds them from bronze before it is"
                  + " turned on again). See docs/gold-streaming.md.");

  public static final List<ConfigOption<?>> ALL =
      List.of(
          POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD_ENV, POSTGRES_PASSWORD_FILE,
          POSTGRES_SCHEMA, SLOT, PUBLICATION, WRITER_ID, LAKE_ROOT, LOG_CHECKPOINT_INTERVAL,
          LOG_CHECKPOINT_STAGGER, LOG_COMPACTION_INTERVAL,
          BATCH_MAX_ROWS,
          BATCH_MAX_BYTES, BODY_MAX_BYTES, TICK_PERIOD, MIN_TICK_SPACING, CUT_ROW_CACHE,
          CUT_SNAPSHOT_PHASE_ROWS,
          CHECKPOINT_INTERVAL,
          CHECKPOINT_TIMEOUT,
          STATE_BACKEND, STATE_DIR, KEYS_LOOKUP_QUERY, KEYS_LOOKUP_TIMEOUT, RETRY_MAX_ATTEMPTS,
          RETRY_MAX_DURATION, RETRY_INITIAL_BACKOFF, RETRY_MAX_BACKOFF,
          COMMIT_RETRY_MAX_DURATION, COMMIT_RETRY_INITIAL_BACKOFF, COMMIT_RETRY_MAX_BACKOFF,
          MAX_ROWS_PER_COMMIT, MAX_BYTES_PER_COMMIT, COMMIT_PARALLELISM, WRITE_PARALLELISM, KEY_CACHE_DIR, QUARANTINE_MAX_REPLANS, QUARANTINE_REPLAY_PAGE_ROWS,
          POSTGRES_CONNECT_TIMEOUT, POSTGRES_SOCKET_TIMEOUT, BREAKER_FAILURE_THRESHOLD,
          BREAKER_OPEN_WAIT, JOURNAL_RETRY_WINDOW,
          LEASE_DURATION, LEASE_RENEW_PERIOD, LEASE_SAFETY_MARGIN, LEASE_WAIT,
          SLOT_WAIT,
          METRICS_PROMETHEUS_PORT, SAVEPOINTS_RETAINED, PROGRESS_INTERVAL,
          CDC_SNAPSHOT_SPLIT_SIZE, CDC_SNAPSHOT_FETCH_SIZE, CDC_MAX_BATCH_SIZE, CDC_MAX_QUEUE_SIZE,
          CDC_POLL_INTERVAL, COMPACT_ENABLED, COMPACT_MIN_FILES, COMPACT_SMALL_FILE_SIZE,
          COMPACT_TARGET_FILE_SIZE, COMPACT_KEYED_TARGET_FILE_SIZE, COMPACT_BUDGET, VACUUM_MIN_RETENTION,
          GOLD_ENABLED);

  private LakeWriterOptions() {}

  /**
   * The option's description as plain text. {@code ConfigOption.description()} is a {@link
   * Description} object whose {@code toString()} is its identity ("Description@782859e"), so
   * messages must go through this.
   */
  public static String describe(ConfigOption<?> option) {
    return new PlainText().format(option.description());
  }

  /** Flink's description formatter without HTML: text as is, links and lists spelled out. */
  private static final class PlainText extends Formatter {
    @Override
    protected void formatLink(StringBuilder state, String link, String description) {
      state.append(description.isEmpty() ? link : description + " (" + link + ")");
    }

    @Override
    protected void formatLineBreak(StringBuilder state) {
      state.append('\n');
    }

    @Override
    protected void formatText(
        StringBuilder state, String format, String[] elements, EnumSet<TextStyle> styles) {
      state.append(String.format(format, (Object[]) elements));
    }

    @Override
    protected void formatList(StringBuilder state, String[] entries) {
      for (String entry : entries) {
        state.append("\n- ").append(entry);
      }
    }

    @Override
    protected Formatter newInstance() {
      return new PlainText();
    }
  }
}
