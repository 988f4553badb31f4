package org.oml.lakewriter.delta.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The cost of a retraction grows with the files that hold its key, not with the table: a silver
 * table of {@code bench.files} files (one promotion batch each; random artifact ids, so every
 * file's statistics cover almost every id), then rounds of one batch that retracts one artifact
 * (plus promotions up to {@code bench.batch} events), each next to an append-only batch of the
 * same size. Reports the candidate files (the live files the key index names), the files read and
 * replaced (expected 1, 1, 1), and per batch the writer's time and the silver commit's time.
 * Excluded from the default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=RetractBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.files=100 -Dbench.rowsPerFile=200 -Dbench.batch=50 -Dbench.rounds=10]
 * </pre>
 */
@Tag("benchmark")
class RetractBenchmark {
  private static final int FILES = Integer.getInteger("bench.files", 100);
  private static final int ROWS_PER_FILE = Integer.getInteger("bench.rowsPerFile", 200);
  private static final int BATCH = Integer.getInteger("bench.batch", 50);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 10);
  private static final boolean SEQUENTIAL_IDS = Boolean.getBoolean("bench.sequentialIds");
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);

  private long seq;
  private long promoted;

  @Test
  void retractOneArtifactInAHundredFileTable() throws Exception {
    Path dir = Files.createTempDirectory("retract-bench");
    LakeConfig lake = SinkDriver.lake(dir);
    CountingClient counts = new CountingClient(new KernelDeltaTableClient(lake));
    CountingClient commits = new CountingClient(new KernelDeltaTableClient(lake));
    DeltaSinkWriter writer = new DeltaSinkWriter(counts, Clock.systemUTC());
    DeltaCommitter committer = new DeltaCommitter(commits, FrontierListener.NONE);

    long fillStart = System.nanoTime();
    for (int f = 0; f < FILES; f++) {
      run(writer, committer, promotions(ROWS_PER_FILE));
    }
    double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
    int filesBefore = LakeReader.open(lake).fileCount(SILVER);

    // A restart: a new writer's first promotion builds its silver key index from the whole table
    // (the key columns of every file), once; the next batch pays nothing for it.
    double[] restart = new double[2];
    try (DeltaSinkWriter restarted =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC())) {
      for (int i = 0; i < 2; i++) {
        long start = System.nanoTime();
        List<DeltaCommittable> ready = write(restarted, promotions(BATCH));
        restart[i] = (System.nanoTime() - start) / 1e6;
        committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
      }
    }

    List<Round> retracts = new ArrayList<>();
    List<Round> appends = new ArrayList<>();
    for (int round = -1; round < ROUNDS; round++) { // round -1 warms up and is not reported
      long artifact = (long) ((round + 1) * 37 % FILES) * ROWS_PER_FILE + ROWS_PER_FILE / 2;
      List<OutboxEvent> retract = new ArrayList<>();
      retract.add(Events.retract(++seq, TENANT, EventKind.DEMOTE, artifact(artifact), 1));
      retract.addAll(promotions(BATCH - 1));
      Round r = measure(writer, committer, counts, commits, retract);
      Round a = measure(writer, committer, counts, commits, promotions(BATCH));
      if (round >= 0) {
        retracts.add(r);
        appends.add(a);
      }
    }
    int filesAfter = LakeReader.open(lake).fileCount(SILVER);
    writer.close();
    committer.close();

    System.out.printf(
        Locale.ROOT,
        "%nRetractBenchmark: silver table of %d files x %d rows (filled in %.1f s), batches of %d"
            + " events, %d rounds%n",
        filesBefore,
        ROWS_PER_FILE,
        fillSeconds,
        BATCH,
        ROUNDS);
    System.out.printf(
        Locale.ROOT,
        "  retraction of 1 artifact: candidate files after statistics %s, files read %s, files"
            + " rewritten %s (per round)%n",
        distinct(retracts, Round::candidates),
        distinct(retracts, Round::filesRead),
        distinct(retracts, Round::filesReplaced));
    System.out.printf(
        Locale.ROOT,
        "  after a restart, %d promotions: first batch (key index built from %d files) %.1f ms,"
            + " second batch %.1f ms%n",
        BATCH,
        filesBefore,
        restart[0],
        restart[1]);
    report("retract + %d promotions", BATCH - 1, retracts);
    report("append-only, %d promotions", BATCH, appends);
    System.out.printf(
        Locale.ROOT,
        "  silver files: %d before the rounds, %d after (a round replaces 1 file by its rewrite"
            + " and appends 2)%n%n",
        filesBefore,
        filesAfter);
  }

  private Round measure(
      DeltaSinkWriter writer,
      DeltaCommitter committer,
      CountingClient counts,
      CountingClient commits,
      List<OutboxEvent> events)
      throws Exception {
    counts.reset();
    commits.reset();
    long start = System.nanoTime();
    List<DeltaCommittable> ready = write(writer, events);
    double writeMillis = (System.nanoTime() - start) / 1e6;
    committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
    int replaced =
        ready.stream()
            .flatMap(c -> c.tables().stream())
            .filter(t -> t.table().equals(SILVER))
            .mapToInt(t -> t.removes().size())
            .sum();
    return new Round(
        counts.candidates, counts.filesRead, replaced, writeMillis, commits.silverCommitMillis);
  }

  private void run(DeltaSinkWriter writer, DeltaCommitter committer, List<OutboxEvent> events)
      throws Exception {
    committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(write(writer, events))));
  }

  private List<DeltaCommittable> write(DeltaSinkWriter writer, List<OutboxEvent> events)
      throws Exception {
    long from = events.get(0).seq() - 1;
    writer.write(new Batch(from, seq, events), null);
    return writer.prepareCommit();
  }

  private List<OutboxEvent> promotions(int count) {
    List<OutboxEvent> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      events.add(
          Events.promote(
              ++seq, TENANT, artifact(promoted++), 1, "ciphertext-" + "x".repeat(400) + seq));
    }
    return events;
  }

  /**
   * The n-th promoted artifact's id: random-looking hex by default (a bijective 64-bit mix of n, so
   * ids follow no order in time and statistics rule out no file, as with a producer's UUIDs), or
   * {@code art-<n>} with {@code -Dbench.sequentialIds=true} (the old shape, which file pruning by
   * statistics handles).
   */
  static String artifact(long n) {
    if (SEQUENTIAL_IDS) {
      return String.format(Locale.ROOT, "art-%08d", n);
    }
    long z = n + 0x9E3779B97F4A7C15L; // SplitMix64's finaliser: a bijection of n
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return String.format(Locale.ROOT, "art-%016x", z ^ (z >>> 31));
  }

  private static void report(String label, int events, List<Round> rounds) {
    System.out.printf(
        Locale.ROOT,
        "  %-28s writer p50 %6.1f ms (max %6.1f)   silver commit p50 %6.1f ms (max %6.1f)%n",
        String.format(Locale.ROOT, label, events),
        Percentile.of(rounds.stream().map(Round::writeMillis).toList(), 50),
        Percentile.of(rounds.stream().map(Round::writeMillis).toList(), 100),
        Percentile.of(rounds.stream().map(Round::commitMillis).toList(), 50),
        Percentile.of(rounds.stream().map(Round::commitMillis).toList(), 100));
  }

  private static String distinct(List<Round> rounds, java.util.function.ToIntFunction<Round> f) {
    return rounds.stream().mapToInt(f).distinct().sorted().boxed().toList().toString();
  }

  private record Round(
      int candidates, int filesRead, int filesReplaced, double writeMillis, double commitMillis) {}

  /** Counts what the MERGE asks of the lake, and times silver commits. */
  private static final class CountingClient extends ForwardingDeltaTableClient {
    int candidates;
    int filesRead;
    double silverCommitMillis;

    CountingClient(DeltaTableClient delegate) {
      super(delegate);
    }

    void reset() {
      candidates = 0;
      filesRead = 0;
      silverCommitMillis = 0;
    }

    @Override
    public CandidateFiles filesThatMayHold(TableId table, Collection<ArtifactKey> keys)
        throws IOException {
      CandidateFiles found = delegate.filesThatMayHold(table, keys);
      candidates += found.files().size();
      return found;
    }

    /** The copy-on-write's candidates now: the live files its key index names. */
    @Override
    public org.oml.lakewriter.delta.LiveFiles liveFiles(TableId table, Collection<String> paths)
        throws IOException {
      org.oml.lakewriter.delta.LiveFiles found = delegate.liveFiles(table, paths);
      candidates += found.files().size();
      return found;
    }

    @Override
    public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
      filesRead++;
      return delegate.readDataFile(table, file);
    }

    @Override
    public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
        throws IOException {
      return commitRewrite(table, batchEnd, files, null);
    }

    @Override
    public CommitOutcome commitRewrite(
        TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
      long start = System.nanoTime();
      CommitOutcome outcome =
          rewrite == null
              ? delegate.commit(table, batchEnd, files)
              : delegate.commitRewrite(table, batchEnd, files, rewrite);
      if (table.equals(SILVER)) {
        silverCommitMillis += (System.nanoTime() - start) / 1e6;
      }
      return outcome;
    }
  }
}
