package org.oml.lakewriter.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.TestMethodOrder;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.delta.logstore.S3ConditionalLogStore;
import org.oml.lakewriter.it.support.S3ProxyExtension;
import org.oml.lakewriter.it.support.S3ProxyServer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Put-if-absent on a real S3-compatible server ({@link S3ProxyServer}): first that the server
 * enforces {@code If-None-Match: *} (sequentially and under concurrency), since every later check
 * relies on it; then {@link S3ConditionalLogStore} through S3A; then two Kernel writers racing for
 * the same table version, 200 rounds, exactly one winner each.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ConditionalWriteITCase {
  private static final String BUCKET = "race";
  private static final String APP = "oml-lakewriter";
  static final int ROUNDS = 200;

  @RegisterExtension
  static final S3ProxyExtension S3 = S3ProxyExtension.bucket(BUCKET).afterALocalLake();

  /**
   * The precondition of everything else: a second {@code PutObject} with {@code If-None-Match: *}
   * on an existing key gets 412 and leaves the object alone, and of two concurrent ones exactly one
   * succeeds (S3Mock 4.12.4 passed the sequential half and failed the concurrent one).
   */
  @Test
  @Order(1)
  void theServerEnforcesIfNoneMatch() throws Exception {
    try (S3Client s3 = S3.server().client()) {
      s3.putObject(b -> b.bucket(BUCKET).key("probe").ifNoneMatch("*"), RequestBody.fromString("first"));
      assertThatThrownBy(
              () ->
                  s3.putObject(
                      b -> b.bucket(BUCKET).key("probe").ifNoneMatch("*"),
                      RequestBody.fromString("second")))
          .isInstanceOfSatisfying(
              S3Exception.class, e -> assertThat(e.statusCode()).as("status").isEqualTo(412));
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("probe")).asUtf8String())
          .isEqualTo("first");

      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        for (int round = 0; round < 100; round++) {
          String key = "probe-race/" + round;
          CyclicBarrier barrier = new CyclicBarrier(2);
          Future<Boolean> a = pool.submit(() -> put(s3, key, "a", barrier));
          Future<Boolean> b = pool.submit(() -> put(s3, key, "b", barrier));
          boolean aWon = a.get();
          assertThat(aWon ^ b.get()).as("round %d: exactly one conditional PUT succeeds", round).isTrue();
          assertThat(s3.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asUtf8String())
              .as("round %d: the object is the winner's", round)
              .isEqualTo(aWon ? "a" : "b");
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** The log store through S3A: a second create of the same entry is Kernel's lost race. */
  @Test
  @Order(2)
  void theLogStoreTurnsA412IntoFileAlreadyExists() throws Exception {
    Configuration conf = conf();
    S3ConditionalLogStore store = new S3ConditionalLogStore(conf);
    org.apache.hadoop.fs.Path entry =
        new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/store/_delta_log/00000000000000000001.json");
    store.write(entry, List.of("{\"a\":1}", "{\"b\":2}").iterator(), false, conf);
    assertThatThrownBy(() -> store.write(entry, List.of("{\"c\":3}").iterator(), false, conf))
        .isInstanceOf(FileAlreadyExistsException.class);
    FileSystem fs = entry.getFileSystem(conf);
    try (var in = fs.open(entry)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}\n{\"b\":2}\n");
    }
    org.apache.hadoop.fs.Path last =
        new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/store/_delta_log/_last_checkpoint");
    store.write(last, List.of("old").iterator(), true, conf);
    store.write(last, List.of("new").iterator(), true, conf);
    try (var in = fs.open(last)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("new\n");
    }
  }

  /**
   * Two writers, each with its own engine (as two processes would have), load the same snapshot
   * and commit the same batch (same txn) at once, {@value #ROUNDS} rounds on one {@code s3a://}
   * table. Each round exactly one wins; the other's conditional PUT gets 412, Kernel resolves the
   * conflict, sees the winner's txn and throws {@code ConcurrentTransactionException}. The log ends
   * with one version per round, each holding its winner's commit, and stays readable.
   */
  @Test
  @Order(3)
  void twoWritersRacingForTheSameVersionHaveOneWinnerEveryRound() throws Exception {
    String table = "s3a://" + BUCKET + "/lake/acme/race_table";
    Configuration conf = conf();
    Engine setup = DefaultEngine.create(conf);
    TableManager.buildCreateTableTransaction(
            table, new StructType().add("seq", LongType.LONG), "oml-test")
        .build(setup)
        .commit(setup, CloseableIterable.emptyIterable());

    int singleWinners = 0;
    int doubleWins = 0;
    int losersWithConcurrentTxn = 0;
    List<String> winners = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    long started = System.nanoTime();
    try {
      for (int round = 1; round <= ROUNDS; round++) {
        long txn = round;
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<Object> a = pool.submit(() -> race(barrier, "writer-a", table, txn));
        Future<Object> b = pool.submit(() -> race(barrier, "writer-b", table, txn));
        List<Object> outcomes = List.of(a.get(), b.get());
        List<Object> wins = outcomes.stream().filter(o -> o instanceof String).toList();
        if (wins.size() == 1) {
          singleWinners++;
        } else if (wins.size() > 1) {
          doubleWins++;
        }
        for (Object o : outcomes) {
          if (o instanceof ConcurrentTransactionException) {
            losersWithConcurrentTxn++;
          } else if (o instanceof Throwable) {
            throw new AssertionError("round " + round + ": unexpected failure", (Throwable) o);
          }
        }
        assertThat(wins).as("round %d: exactly one writer wins", round).hasSize(1);
        winners.add((String) wins.get(0));
        if (round % 25 == 0) {
          // Keep snapshot loads short (and write checkpoints on S3 in place, as Kernel does).
          TableManager.loadSnapshot(table).build(setup).writeCheckpoint(setup);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    System.out.printf(
        "S3 put-if-absent race on S3Proxy: %d rounds, %d single winners, %d double wins,"
            + " %d losers with ConcurrentTransactionException, %d s%n",
        ROUNDS, singleWinners, doubleWins, losersWithConcurrentTxn, seconds);
    assertThat(singleWinners).isEqualTo(ROUNDS);
    assertThat(losersWithConcurrentTxn).isEqualTo(ROUNDS);

    Snapshot latest = TableManager.loadSnapshot(table).build(setup);
    assertThat(latest.getVersion()).as("one log version per round").isEqualTo(ROUNDS);
    assertThat(latest.getLatestTransactionVersion(setup, APP)).contains((long) ROUNDS);
    FileSystem fs = new org.apache.hadoop.fs.Path(table).getFileSystem(conf);
    for (int v : new int[] {1, ROUNDS / 2, ROUNDS}) {
      org.apache.hadoop.fs.Path commit =
          new org.apache.hadoop.fs.Path(table + "/_delta_log/" + String.format("%020d.json", v));
      try (var in = fs.open(commit)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .as("version %d holds its winner's commit", v)
            .contains("/" + winners.get(v - 1) + "\",")
            .contains("\"txn\":{\"appId\":\"" + APP + "\",\"version\":" + v + ",");
      }
    }
  }

  /**
   * The control: the same race with a log store that checks for the entry and then PUTs without a
   * condition (what {@code FileSystem.create(path, false)} does on S3A, and what a writer without
   * put-if-absent gets). Both writers then "win" some rounds, so the race above is a real one and
   * its single winners are the condition's doing.
   */
  @Test
  @Order(4)
  void withoutTheConditionBothWritersWinSomeRounds() throws Exception {
    String table = "s3a://" + BUCKET + "/control/acme/race_table";
    Configuration conf = conf();
    conf.set(S3ConditionalLogStore.CONF_KEY, CheckThenPutLogStore.class.getName());
    Engine setup = DefaultEngine.create(conf);
    TableManager.buildCreateTableTransaction(
            table, new StructType().add("seq", LongType.LONG), "oml-test")
        .build(setup)
        .commit(setup, CloseableIterable.emptyIterable());
    int rounds = 30;
    int doubleWins = 0;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 1; round <= rounds; round++) {
        long txn = round;
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<Object> a = pool.submit(() -> race(barrier, "writer-a", table, txn, conf));
        Future<Object> b = pool.submit(() -> race(barrier, "writer-b", table, txn, conf));
        if (a.get() instanceof String && b.get() instanceof String) {
          doubleWins++;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "S3 control race (check-then-PUT, no condition) on S3Proxy: %d rounds, %d double wins%n",
        rounds, doubleWins);
    assertThat(doubleWins).as("rounds in which both writers won without the condition").isPositive();
  }

  /** A log store without put-if-absent: an existence check, then an unconditional PUT. */
  public static final class CheckThenPutLogStore extends io.delta.storage.HadoopFileSystemLogStore {
    public CheckThenPutLogStore(Configuration conf) {
      super(conf);
    }

    @Override
    public void write(
        org.apache.hadoop.fs.Path path,
        java.util.Iterator<String> actions,
        Boolean overwrite,
        Configuration conf)
        throws java.io.IOException {
      FileSystem fs = path.getFileSystem(conf);
      if (!overwrite && fs.exists(path)) {
        throw new FileAlreadyExistsException(path.toString());
      }
      try (var out = fs.create(path, true)) {
        while (actions.hasNext()) {
          out.write((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
    }

    @Override
    public Boolean isPartialWriteVisible(org.apache.hadoop.fs.Path path, Configuration conf) {
      return false;
    }
  }

  private static Object race(CyclicBarrier barrier, String name, String table, long txn)
      throws Exception {
    return race(barrier, name, table, txn, conf());
  }

  /** One racer: load the latest snapshot, wait for the other, commit; its name or its failure. */
  private static Object race(
      CyclicBarrier barrier, String name, String table, long txn, Configuration conf)
      throws Exception {
    Engine own = DefaultEngine.create(conf);
    Snapshot base = TableManager.loadSnapshot(table).build(own);
    barrier.await();
    try {
      base.buildUpdateTableTransaction(name, Operation.WRITE)
          .withTransactionId(APP, txn)
          .withMaxRetries(5)
          .build(own)
          .commit(own, CloseableIterable.emptyIterable());
      return name;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** The project's Hadoop configuration for the lake (its log stores), pointed at the server. */
  private static Configuration conf() {
    return KernelEngines.hadoopConf(
        new LakeConfig("s3a://" + BUCKET + "/lake", S3.server().s3aOptions()));
  }

  private static boolean put(S3Client s3, String key, String body, CyclicBarrier barrier)
      throws Exception {
    barrier.await();
    try {
      s3.putObject(b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"), RequestBody.fromString(body));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412) {
        return false;
      }
      throw e;
    }
  }
}
