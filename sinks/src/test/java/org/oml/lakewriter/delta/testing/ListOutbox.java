package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.oml.lakewriter.delta.quarantine.TenantReplay;
import org.oml.lakewriter.delta.quarantine.TenantTables;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * An outbox in memory for {@link TenantReplay}: every event ever cut, by seq. Serializable by name
 * (the rows live in a static registry), so a Flink job's deserialized copy reads the same outbox.
 */
public final class ListOutbox implements TenantReplay {
  private static final long serialVersionUID = 1L;
  private static final Map<String, Map<Long, OutboxEvent>> OUTBOXES = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> READS = new ConcurrentHashMap<>();

  private final String name;

  public ListOutbox(String name) {
    this.name = name;
    OUTBOXES.put(name, new TreeMap<>());
    READS.put(name, new AtomicInteger());
  }

  public ListOutbox add(Collection<OutboxEvent> events) {
    Map<Long, OutboxEvent> rows = OUTBOXES.get(name);
    synchronized (rows) {
      events.forEach(e -> rows.put(e.seq(), e));
    }
    return this;
  }

  /** How many replays read this outbox. */
  public int reads() {
    return READS.get(name).get();
  }

  @Override
  public List<OutboxEvent> rows(String tenantPrefix, long after, long upTo) {
    READS.get(name).incrementAndGet();
    Map<Long, OutboxEvent> rows = OUTBOXES.get(name);
    List<OutboxEvent> out = new ArrayList<>();
    synchronized (rows) {
      for (OutboxEvent e : rows.values()) {
        if (e.seq() > after && e.seq() <= upTo && TenantTables.prefixOf(e).equals(tenantPrefix)) {
          out.add(e);
        }
      }
    }
    return out;
  }
}
