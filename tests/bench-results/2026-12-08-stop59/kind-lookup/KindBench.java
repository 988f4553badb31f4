import java.util.*;
import java.util.stream.*;
import org.oml.lakewriter.event.EventKind;
/** Old (hash map) against new (by length) kind lookup, on new strings as a deserializer makes. */
public class KindBench {
  static final Map<String, EventKind> MAP = Arrays.stream(EventKind.values())
      .collect(Collectors.toUnmodifiableMap(EventKind::wireName, k -> k));
  public static void main(String[] a) {
    String[] names = {"journal", "journal", "journal", "materialize", "journal", "demote",
        "erase", "materialize", "reassign", "simulation_end"};
    int n = 2_000_000;
    for (int round = 0; round < 6; round++) {
      String[] fresh = new String[n];
      for (int i = 0; i < n; i++) fresh[i] = new String(names[i % names.length].toCharArray());
      long t0 = System.nanoTime(); long s = 0;
      for (int i = 0; i < n; i++) s += Optional.ofNullable(MAP.get(fresh[i])).get().ordinal();
      long t1 = System.nanoTime();
      for (int i = 0; i < n; i++) fresh[i] = new String(names[i % names.length].toCharArray());
      long t2 = System.nanoTime();
      for (int i = 0; i < n; i++) s += EventKind.fromWireName(fresh[i]).get().ordinal();
      long t3 = System.nanoTime();
      System.out.printf("round %d: map %.1f ns, by length %.1f ns per new string (%d)%n",
          round, (t1 - t0) / (double) n, (t3 - t2) / (double) n, s);
    }
  }
}
