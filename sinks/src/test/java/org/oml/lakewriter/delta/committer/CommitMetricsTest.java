package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;

/** The committer's metrics: time since the last commit, per table and bounded, latency, rows. */
class CommitMetricsTest {
  private final MutableClock clock = new MutableClock();
  private final Recording group = new Recording();

  @Test
  void secondsSinceTheLastCommitCountFromTheStartThenFromEachCommitPerTable() {
    CommitMetrics m = new CommitMetrics(group, clock, 256);
    clock.advance(7_000);
    assertThat(gauge("lakewriter.secondsSinceLastCommit")).isEqualTo(7);

    TableId bronze = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    m.tableCommitted(bronze, 10, 40, true);
    clock.advance(3_000);
    assertThat(gauge("lakewriter.secondsSinceLastCommit")).isEqualTo(3);
    String perTable =
        "lakewriter.tenant.acme.table.bronze_journal_events.secondsSinceLastTableCommit";
    assertThat(gauge(perTable)).isEqualTo(3);

    m.tableCommitted(TableId.of("acme", TableKind.SILVER_MEMORIES), 2, 120, true);
    m.tableCommitted(bronze, 10, 5, false); // already applied: a success, no new rows
    assertThat(gauge(perTable)).isZero();
    assertThat(gauge("lakewriter.lastCommitLatencyMs")).isEqualTo(5);
    assertThat(gauge("lakewriter.maxCommitLatencyMs")).isEqualTo(120);
    assertThat(((Counter) group.metrics.get("lakewriter.tableCommits")).getCount()).isEqualTo(3);
    assertThat(((Counter) group.metrics.get("lakewriter.committedRows")).getCount()).isEqualTo(12);
    assertThat(((Histogram) group.metrics.get("lakewriter.commitLatencyMs")).getCount())
        .isEqualTo(3);

    m.frontierReached(42);
    m.frontierReached(41);
    assertThat(gauge("lakewriter.committedFrontier")).isEqualTo(42);
  }

  @Test
  void perTableSeriesStopAtTheCapAndTheRestAreCounted() {
    CommitMetrics m = new CommitMetrics(group, clock, 2);
    m.tableCommitted(TableId.of("a", TableKind.BRONZE_JOURNAL_EVENTS), 1, 1, true);
    m.tableCommitted(TableId.of("b", TableKind.BRONZE_JOURNAL_EVENTS), 1, 1, true);
    m.tableCommitted(TableId.of("c", TableKind.BRONZE_JOURNAL_EVENTS), 1, 1, true);
    m.tableCommitted(TableId.of("c", TableKind.BRONZE_JOURNAL_EVENTS), 1, 1, true);
    assertThat(group.metrics.keySet())
        .filteredOn(k -> k.endsWith("secondsSinceLastTableCommit"))
        .hasSize(2);
    assertThat(gauge("lakewriter.tablesOverSeriesCap")).isEqualTo(1);
  }

  private long gauge(String name) {
    Metric g = group.metrics.get(name);
    assertThat(g).as(name + " in " + group.metrics.keySet()).isNotNull();
    return ((Number) ((Gauge<?>) g).getValue()).longValue();
  }

  /** Keeps metrics by their dotted name, key-value groups as {@code key.value}. */
  static final class Recording extends UnregisteredMetricsGroup {
    final Map<String, Metric> metrics;
    private final String prefix;

    Recording() {
      this(new ConcurrentHashMap<>(), "");
    }

    private Recording(Map<String, Metric> metrics, String prefix) {
      this.metrics = metrics;
      this.prefix = prefix;
    }

    @Override
    public Counter counter(String name) {
      return counter(name, new SimpleCounter());
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
      metrics.put(prefix + name, counter);
      return counter;
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
      metrics.put(prefix + name, gauge);
      return gauge;
    }

    @Override
    public <H extends Histogram> H histogram(String name, H histogram) {
      metrics.put(prefix + name, histogram);
      return histogram;
    }

    @Override
    public MetricGroup addGroup(String name) {
      return new Recording(metrics, prefix + name + ".");
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
      return new Recording(metrics, prefix + key + "." + value + ".");
    }
  }

  private static final class MutableClock extends Clock {
    private long millis = 1_700_000_000_000L;

    void advance(long ms) {
      millis += ms;
    }

    @Override
    public long millis() {
      return millis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
