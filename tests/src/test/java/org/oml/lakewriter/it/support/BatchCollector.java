package org.oml.lakewriter.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.oml.lakewriter.event.Batch;

/** Collects the batches a job emits, in emission order, into a list that the test reads. */
@SuppressWarnings("deprecation")
public final class BatchCollector implements SinkFunction<Batch> {
  private static final long serialVersionUID = 1L;
  private static final Map<String, List<Batch>> RESULTS = new ConcurrentHashMap<>();

  private final String id;

  public BatchCollector(String id) {
    this.id = id;
    RESULTS.put(id, new CopyOnWriteArrayList<>());
  }

  @Override
  public void invoke(Batch batch, Context context) {
    RESULTS.get(id).add(batch);
  }

  public List<Batch> batches() {
    return new ArrayList<>(RESULTS.get(id));
  }

  public long frontier() {
    List<Batch> all = batches();
    return all.isEmpty() ? 0 : all.get(all.size() - 1).batchEnd();
  }

  /** Waits until the condition holds on the batches, or fails naming what was seen. */
  public List<Batch> await(Predicate<List<Batch>> condition, Duration timeout, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      List<Batch> now = batches();
      if (condition.test(now)) {
        return now;
      }
      Thread.sleep(100);
    }
    throw new AssertionError(
        "timed out after " + timeout + " waiting for " + what + "; frontier=" + frontier()
            + ", batches=" + batches().size());
  }

  public List<Batch> awaitFrontier(long seq, Duration timeout) throws InterruptedException {
    return await(b -> !b.isEmpty() && b.get(b.size() - 1).batchEnd() >= seq, timeout,
        "frontier >= " + seq);
  }
}
