package org.oml.lakewriter.it.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * Reads a job's metrics from the MiniCluster's {@link InMemoryReporter}, by group (the reporter's
 * by-identifier view fails on the CDC source, which registers some of its metrics twice).
 */
public final class JobMetrics {
  private final InMemoryReporter reporter;
  private final String job;

  public JobMetrics(InMemoryReporter reporter, JobID job) {
    this.reporter = reporter;
    this.job = job.toString();
  }

  /** The sum of the job's counters whose identifier ends with {@code .name}. */
  public long counter(String name) {
    long sum = 0;
    for (Metric m : matching(name)) {
      if (m instanceof Counter) {
        sum += ((Counter) m).getCount();
      }
    }
    return sum;
  }

  /** Dead letters newly journalled by this job, of one error class. */
  public long deadLetters(String errorClass) {
    return counter("errorClass." + errorClass + ".deadLetters");
  }

  public long alreadyJournalled() {
    return counter("deadLettersAlreadyJournalled");
  }

  /** The job's restarts, if the reporter has the gauge; -1 otherwise. */
  public long restarts() {
    return gauge("numRestarts");
  }

  /** The value of the job's numeric gauge {@code name}; -1 if it has none. */
  public long gauge(String name) {
    for (Metric m : matching(name)) {
      if (m instanceof Gauge) {
        return ((Number) ((Gauge<?>) m).getValue()).longValue();
      }
    }
    return -1;
  }

  private List<Metric> matching(String name) {
    List<Metric> found = new ArrayList<>();
    for (Map.Entry<MetricGroup, Map<String, Metric>> g : reporter.getMetricsByGroup().entrySet()) {
      MetricGroup group = g.getKey();
      if (!job.equals(group.getAllVariables().get("<job_id>"))) {
        continue;
      }
      for (Map.Entry<String, Metric> m : g.getValue().entrySet()) {
        if (group.getMetricIdentifier(m.getKey()).endsWith("." + name)) {
          found.add(m.getValue());
        }
      }
    }
    return found;
  }
}
