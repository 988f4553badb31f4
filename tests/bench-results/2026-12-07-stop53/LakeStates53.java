import java.util.*;
import org.oml.lakewriter.delta.*;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * The lake read back with the project's LakeReader, printed in the line format of
 * outside-expect53.sql (count, dlclass, silver, lineage, memory, workarea lines), plus a few
 * "dup|" lines when a table holds a key twice. Run: java -cp CP LakeStates53.java LAKE_ROOT
 */
public class LakeStates53 {
  static String s(Object o) {
    return o == null ? "null" : String.valueOf(o);
  }

  public static void main(String[] a) throws Exception {
    LakeReader r = LakeReader.open(LakeConfig.of(a[0]));
    List<String> out = new ArrayList<>();
    for (TableId t : r.tables()) {
      String p = t.prefix();
      List<Map<String, Object>> rows = r.rows(t);
      Set<String> keys = new HashSet<>();
      switch (t.kind()) {
        case BRONZE_JOURNAL_EVENTS -> {
          out.add("count|" + p + "|bronze|" + rows.size());
          for (Map<String, Object> row : rows)
            if (!keys.add(s(row.get("seq")))) out.add("dup|" + t + "|seq " + row.get("seq"));
        }
        case DEAD_LETTER -> {
          out.add("count|" + p + "|dead_letter|" + rows.size());
          Map<String, Integer> byClass = new TreeMap<>();
          for (Map<String, Object> row : rows) {
            byClass.merge(s(row.get("error_class")), 1, Integer::sum);
            if (!keys.add(s(row.get("seq")))) out.add("dup|" + t + "|seq " + row.get("seq"));
          }
          byClass.forEach((c, n) -> out.add("dlclass|" + p + "|" + c + "|" + n));
        }
        case SILVER_MEMORIES -> {
          for (Map<String, Object> row : rows) {
            boolean body = row.get("body") instanceof byte[] b && b.length > 0;
            out.add("silver|" + p + "|" + s(row.get("artifact_id")) + "|" + s(row.get("version")) + "|"
                + s(row.get("state")) + "|" + s(row.get("workarea_id")) + "|" + (body ? 1 : 0));
            if (!keys.add(row.get("artifact_id") + "@" + row.get("version")))
              out.add("dup|" + t + "|" + row.get("artifact_id") + "@" + row.get("version"));
          }
        }
        case GOLD_LINEAGE -> {
          for (Map<String, Object> row : rows) {
            String ret = s(row.get("retractions"));
            int n = ret.split("\"kind\":", -1).length - 1;
            out.add("lineage|" + p + "|" + s(row.get("artifact_id")) + "|" + s(row.get("version")) + "|"
                + s(row.get("state")) + "|" + s(row.get("workarea_id")) + "|" + s(row.get("promoted_seq"))
                + "|" + n);
            if (!keys.add(row.get("artifact_id") + "@" + row.get("version")))
              out.add("dup|" + t + "|" + row.get("artifact_id") + "@" + row.get("version"));
          }
        }
        case GOLD_WORKAREA_MEMORIES -> {
          for (Map<String, Object> row : rows) {
            out.add("memory|" + p + "|" + s(row.get("artifact_id")) + "|" + s(row.get("version")) + "|"
                + s(row.get("workarea_id")) + "|" + s(row.get("validated_seq")));
            if (!keys.add(row.get("artifact_id") + "@" + row.get("version")))
              out.add("dup|" + t + "|" + row.get("artifact_id") + "@" + row.get("version"));
          }
        }
        case GOLD_WORKAREAS -> {
          for (Map<String, Object> row : rows)
            out.add("workarea|" + p + "|" + s(row.get("workarea_id")) + "|" + s(row.get("state")) + "|"
                + s(row.get("path")) + "|" + s(row.get("validated_seq")) + "|" + s(row.get("invalidated_seq")));
        }
        default -> out.add("other|" + t + "|" + rows.size());
      }
    }
    Collections.sort(out);
    out.forEach(System.out::println);
  }
}
