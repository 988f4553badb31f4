package org.oml.lakewriter.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;

/** How {@link BackgroundCompaction} runs its rounds (a recording stand-in for the scheduler). */
class BackgroundCompactionTest {
  private static final TableId A = TableId.of("a", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("b", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId C = TableId.of("c", TableKind.BRONZE_JOURNAL_EVENTS);

  /** Records each round's tables and thread; the first round waits for {@link #release}. */
  private static final class Rounds implements Compaction {
    final List<Set<TableId>> touched = Collections.synchronizedList(new ArrayList<>());
    final List<String> threads = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicReference<TableCompactor.IoCheck> check = new AtomicReference<>();
    final AtomicBoolean closed = new AtomicBoolean();
    RuntimeException failFirst;

    @Override
    public void committed(TableId table, int filesAdded) {}

    @Override
    public void afterCommits(Set<TableId> tables, TableCompactor.IoCheck beforeCommit) {
      touched.add(Set.copyOf(tables));
      threads.add(Thread.currentThread().getName());
      check.set(beforeCommit);
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (failFirst != null && touched.size() == 1) {
        throw failFirst;
      }
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }

  @Test
  void requestsReturnAtOnceAndThoseDuringARoundFoldIntoOneMore() throws Exception {
    Rounds rounds = new Rounds();
    BackgroundCompaction background = new BackgroundCompaction(rounds, null, Duration.ofSeconds(5));
    try {
      background.afterCommits(Set.of(A), TableCompactor.IoCheck.NONE);
      assertThat(rounds.started.await(10, TimeUnit.SECONDS)).isTrue();
      background.afterCommits(Set.of(B), TableCompactor.IoCheck.NONE);
      background.afterCommits(Set.of(C), TableCompactor.IoCheck.NONE);
      assertThat(background.awaitIdle(Duration.ofMillis(100))).as("a round is held").isFalse();
      rounds.release.countDown();
      assertThat(background.awaitIdle(Duration.ofSeconds(10))).isTrue();
      assertThat(rounds.touched).containsExactly(Set.of(A), Set.of(B, C));
      assertThat(rounds.threads).containsOnly("delta-compactor");
    } finally {
      background.close();
    }
  }

  @Test
  void aFailedRoundDoesNotStopTheNext() throws Exception {
    Rounds rounds = new Rounds();
    rounds.failFirst = new IllegalStateException("boom");
    rounds.release.countDown();
    BackgroundCompaction background = new BackgroundCompaction(rounds, null, Duration.ofSeconds(5));
    try {
      background.afterCommits(Set.of(A), TableCompactor.IoCheck.NONE);
      assertThat(background.awaitIdle(Duration.ofSeconds(10))).isTrue();
      background.afterCommits(Set.of(B), TableCompactor.IoCheck.NONE);
      assertThat(background.awaitIdle(Duration.ofSeconds(10))).isTrue();
      assertThat(rounds.touched).containsExactly(Set.of(A), Set.of(B));
    } finally {
      background.close();
    }
  }

  @Test
  void afterCloseTheRoundsCheckRefusesEveryCommitAndNoRoundStarts() throws Exception {
    Rounds rounds = new Rounds();
    AtomicBoolean ownedClosed = new AtomicBoolean();
    BackgroundCompaction background =
        new BackgroundCompaction(rounds, () -> ownedClosed.set(true), Duration.ofSeconds(5));
    background.afterCommits(Set.of(A), TableCompactor.IoCheck.NONE);
    assertThat(rounds.started.await(10, TimeUnit.SECONDS)).isTrue();
    TableCompactor.IoCheck check = rounds.check.get();
    check.run(); // open: the lease check passes

    background.close();

    assertThatThrownBy(check::run)
        .isInstanceOf(CompactionScheduler.LeaseCheckFailed.class)
        .hasMessageContaining("closing");
    assertThat(rounds.closed).isTrue();
    assertThat(ownedClosed).isTrue();
    background.afterCommits(Set.of(B), TableCompactor.IoCheck.NONE);
    assertThat(rounds.touched).containsExactly(Set.of(A));
  }

  @Test
  void theRoundRunsTheCommittersCheckToo() throws Exception {
    Rounds rounds = new Rounds();
    rounds.release.countDown();
    BackgroundCompaction background = new BackgroundCompaction(rounds, null, Duration.ofSeconds(5));
    try {
      background.afterCommits(
          Set.of(A),
          () -> {
            throw new CompactionScheduler.LeaseCheckFailed(new IllegalStateException("lease lost"));
          });
      assertThat(background.awaitIdle(Duration.ofSeconds(10))).isTrue();
      assertThatThrownBy(rounds.check.get()::run).hasMessageContaining("lease lost");
    } finally {
      background.close();
    }
  }
}
