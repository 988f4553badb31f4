import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;

public class Buckets {
  static final String[][] TAGS = {
    {"compact", "TableCompactor"},
    {"logckpt", "Checkpointer"},
    {"crc", "ChecksumWriter"},
    {"cow-rewrite", "CopyOnWrite"},
    {"silvermerge", "SilverMerge"},
    {"goldmerge", "GoldMerge"},
    {"snapload", "SnapshotCache"},
    {"commit", "DeltaCommitter"},
    {"sinkwriter", "DeltaSinkWriter"},
    {"parquetwrite", "org.apache.parquet.hadoop.ParquetWriter"},
    {"parquetread", "org.apache.parquet.hadoop.ParquetFileReader"},
    {"kernel-logreplay", "io.delta.kernel.internal.replay"},
    {"rocksdb", "org.rocksdb"},
    {"cut", "lakewriter.operators"},
    {"debezium", "io.debezium"},
    {"vacuum", "Vacuum"},
  };
  public static void main(String[] a) throws Exception {
    long bucketMs = Long.parseLong(a[1]) * 1000;
    Map<Long, Map<String, Integer>> byBucket = new TreeMap<>();
    Map<Long, Map<String, Integer>> selfBy = new TreeMap<>();
    Map<Long, Map<String, Integer>> threadBy = new TreeMap<>();
    Map<Long, Map<String, Integer>> oursBy = new TreeMap<>();
    long t0 = -1;
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        long t = e.getStartTime().toEpochMilli();
        if (t0 < 0) t0 = t;
        long b = (t - t0) / bucketMs;
        RecordedStackTrace st = e.getStackTrace();
        if (st == null) continue;
        RecordedThread th = e.getThread("sampledThread");
        String tn = th == null ? "?" : th.getJavaName();
        if (tn == null) tn = "?";
        tn = tn.replaceAll("[0-9]+", "#");
        if (tn.length() > 40) tn = tn.substring(0, 40);
        threadBy.computeIfAbsent(b, k -> new HashMap<>()).merge(tn, 1, Integer::sum);
        StringBuilder all = new StringBuilder();
        for (RecordedFrame f : st.getFrames()) {
          all.append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName()).append('\n');
        }
        String s = all.toString();
        String tag = "other";
        for (String[] tg : TAGS) if (s.contains(tg[1])) { tag = tg[0]; break; }
        byBucket.computeIfAbsent(b, k -> new HashMap<>()).merge(tag, 1, Integer::sum);
        String ours = "?";
        for (RecordedFrame f : st.getFrames()) { String n = f.getMethod().getType().getName(); if (n.startsWith("org.oml")) { ours = n.substring(n.lastIndexOf('.')+1) + "." + f.getMethod().getName(); break; } }
        String key2 = tn + " | " + tag + " | " + ours;
        oursBy.computeIfAbsent(b, k -> new HashMap<>()).merge(key2, 1, Integer::sum);
        RecordedFrame top = st.getFrames().isEmpty() ? null : st.getFrames().get(0);
        String self = top == null ? "?" : top.getMethod().getType().getName() + "." + top.getMethod().getName();
        selfBy.computeIfAbsent(b, k -> new HashMap<>()).merge(self, 1, Integer::sum);
      }
    }
    for (Long b : byBucket.keySet()) {
      System.out.println("== bucket " + b + " (" + (b * bucketMs / 1000) + " s)");
      print("  tags", byBucket.get(b), 20);
      print("  threads", threadBy.get(b), 10);
      print("  self", selfBy.get(b), 8);
      for (var en : oursBy.get(b).entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(25).toList()) System.out.println("     " + en.getValue() + "  " + en.getKey());
    }
  }
  static void print(String h, Map<String, Integer> m, int n) {
    int tot = m.values().stream().mapToInt(Integer::intValue).sum();
    StringBuilder sb = new StringBuilder(h + " (" + tot + "): ");
    m.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(n)
        .forEach(en -> sb.append(en.getKey()).append('=').append(en.getValue()).append("  "));
    System.out.println(sb);
  }
}
