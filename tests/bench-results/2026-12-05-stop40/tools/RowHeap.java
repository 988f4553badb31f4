import java.util.*;
import org.oml.lakewriter.event.OutboxEvent;

/** Heap taken by N outbox rows held in a HashMap<Long, record(row, size)>, against the cache's count. */
public class RowHeap {
  record Cached(OutboxEvent row, long bytes) {}
  public static void main(String[] a) throws Exception {
    int n = Integer.parseInt(a[0]);
    int body = Integer.parseInt(a[1]);
    Random r = new Random(1);
    long before = used();
    Map<Long, Cached> m = new HashMap<>();
    long counted = 0;
    for (long s = 1; s <= n; s++) {
      byte[] b = body > 0 ? new byte[body] : null;
      if (b != null) r.nextBytes(b);
      OutboxEvent e = OutboxEvent.builder().seq(s).txId(1000 + s).tenantId("tenant-" + (s % 8))
          .kind(body > 0 ? "materialize" : "journal").artifactId(UUID.randomUUID().toString())
          .artifactVersion(1L).workareaId("wa-" + (s % 100)).pathAtWrite("/notes/n" + s + ".md")
          .writerIdentity("agent-" + (s % 10)).principal("user-" + (s % 50))
          .plaintextDigest(hex(r)).ciphertextDigest(hex(r)).dataKeyId("key-" + s).body(b)
          .envelope("{\"op\":\"write\",\"path\":\"/notes/n" + s + ".md\",\"digest\":\"" + hex(r) + "\"}")
          .eventTimeMicros(1_700_000_000_000_000L + s).build();
      long size = e.estimatedBytes() + 600;
      m.put(s, new Cached(e, size));
      counted += size;
    }
    long after = used();
    System.out.printf("rows %d body %d: heap %.0f B/row, counted %.0f B/row (estimatedBytes %.0f), heap/counted %.2f%n",
        n, body, (after - before) / (double) n, counted / (double) n, (counted - 600.0 * n) / n,
        (after - before) / (double) counted);
    if (m.size() != n) throw new AssertionError();
  }
  static String hex(Random r) { StringBuilder b = new StringBuilder(); for (int i = 0; i < 32; i++) b.append(String.format("%02x", r.nextInt(256))); return b.toString(); }
  static long used() throws Exception { for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(100); } Runtime rt = Runtime.getRuntime(); return rt.totalMemory() - rt.freeMemory(); }
}
