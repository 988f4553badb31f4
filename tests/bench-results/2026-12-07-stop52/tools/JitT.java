import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
public class JitT {
  public static void main(String[] a) throws Exception {
    TreeMap<Long, long[]> buckets = new TreeMap<>();
    java.time.Instant first = null;
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.Compilation")) continue;
        long s = e.getStartTime().getEpochSecond() / 10 * 10;
        long[] v = buckets.computeIfAbsent(s, k -> new long[2]);
        v[0] += e.getDuration().toMillis(); v[1]++;
      }
    }
    buckets.forEach((k, v) -> System.out.println(java.time.Instant.ofEpochSecond(k) + " " + v[1] + " compiles(>threshold) " + v[0] + " ms"));
  }
}
