package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.quarantine.QuarantineStore;

/**
 * A quarantine store whose records outlive every writer and committer that opens it, as the lake's
 * do: share one instance between the "before" and "after" of a restart. Records go through their
 * JSON form, so a test also reads what a restarted process would read.
 */
public final class InMemoryQuarantineStore implements QuarantineStore {
  private final Map<String, byte[]> records = new TreeMap<>();
  private final List<String> log = new ArrayList<>();
  private int failNext;

  /** The next {@code n} calls throw a transient {@link IOException}. */
  public InMemoryQuarantineStore failNext(int n) {
    failNext = n;
    return this;
  }

  @Override
  public synchronized Map<String, Quarantine> list() throws IOException {
    maybeFail();
    Map<String, Quarantine> all = new TreeMap<>();
    for (Map.Entry<String, byte[]> e : records.entrySet()) {
      all.put(e.getKey(), Quarantine.fromJson(e.getValue(), e.getKey()));
    }
    return all;
  }

  @Override
  public synchronized void put(Quarantine record) throws IOException {
    maybeFail();
    records.put(record.tenant(), record.toJson());
    log.add("put " + record.tenant() + " resume=" + record.resumeAfter());
  }

  @Override
  public synchronized void delete(String tenant) throws IOException {
    maybeFail();
    records.remove(tenant);
    log.add("delete " + tenant);
  }

  public synchronized Quarantine get(String tenant) throws IOException {
    return list().get(tenant);
  }

  public synchronized List<String> log() {
    return List.copyOf(log);
  }

  private void maybeFail() throws IOException {
    if (failNext > 0) {
      failNext--;
      throw new IOException("injected quarantine store failure");
    }
  }
}
