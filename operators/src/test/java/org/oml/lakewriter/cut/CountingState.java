package org.oml.lakewriter.cut;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * A {@link BatchCutFunction.StateView} that counts the cut's state accesses by kind. The counts
 * are static: a harness may hand the operator a copy of its function.
 */
final class CountingState implements BatchCutFunction.StateView {
  private static final long serialVersionUID = 1L;

  static final AtomicLong CONTAINS = new AtomicLong();
  static final AtomicLong GETS = new AtomicLong();
  static final AtomicLong PUTS = new AtomicLong();
  static final AtomicLong REMOVES = new AtomicLong();
  static final AtomicLong PASSES = new AtomicLong();
  /** Entries the buffer's iterators yielded. */
  static final AtomicLong ENTRIES = new AtomicLong();
  static final AtomicLong PROGRESS_READS = new AtomicLong();
  static final AtomicLong PROGRESS_WRITES = new AtomicLong();

  static void reset() {
    for (AtomicLong c :
        new AtomicLong[] {
          CONTAINS, GETS, PUTS, REMOVES, PASSES, ENTRIES, PROGRESS_READS, PROGRESS_WRITES
        }) {
      c.set(0);
    }
  }

  @Override
  public MapState<Long, OutboxEvent> buffer(MapState<Long, OutboxEvent> b) {
    return new MapState<>() {
      @Override
      public OutboxEvent get(Long key) throws Exception {
        GETS.incrementAndGet();
        return b.get(key);
      }

      @Override
      public void put(Long key, OutboxEvent value) throws Exception {
        PUTS.incrementAndGet();
        b.put(key, value);
      }

      @Override
      public void putAll(Map<Long, OutboxEvent> map) throws Exception {
        PUTS.addAndGet(map.size());
        b.putAll(map);
      }

      @Override
      public void remove(Long key) throws Exception {
        REMOVES.incrementAndGet();
        b.remove(key);
      }

      @Override
      public boolean contains(Long key) throws Exception {
        CONTAINS.incrementAndGet();
        return b.contains(key);
      }

      @Override
      public Iterable<Map.Entry<Long, OutboxEvent>> entries() throws Exception {
        PASSES.incrementAndGet();
        return b.entries();
      }

      @Override
      public Iterable<Long> keys() throws Exception {
        PASSES.incrementAndGet();
        return b.keys();
      }

      @Override
      public Iterable<OutboxEvent> values() throws Exception {
        PASSES.incrementAndGet();
        return b.values();
      }

      @Override
      public Iterator<Map.Entry<Long, OutboxEvent>> iterator() throws Exception {
        PASSES.incrementAndGet();
        Iterator<Map.Entry<Long, OutboxEvent>> it = b.iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Map.Entry<Long, OutboxEvent> next() {
            ENTRIES.incrementAndGet();
            return it.next();
          }
        };
      }

      @Override
      public boolean isEmpty() throws Exception {
        return b.isEmpty();
      }

      @Override
      public void clear() {
        b.clear();
      }
    };
  }

  @Override
  public ValueState<CutProgress> progress(ValueState<CutProgress> p) {
    return new ValueState<>() {
      @Override
      public CutProgress value() throws java.io.IOException {
        PROGRESS_READS.incrementAndGet();
        return p.value();
      }

      @Override
      public void update(CutProgress value) throws java.io.IOException {
        PROGRESS_WRITES.incrementAndGet();
        p.update(value);
      }

      @Override
      public void clear() {
        p.clear();
      }
    };
  }
}
