import java.util.*;
import org.oml.lakewriter.delta.*;
import org.oml.lakewriter.delta.read.LakeReader;
/** Per tenant: silver rows by state (and how many hold a body), active silver rows by workarea, gold memories. */
public class LakeStates52 {
  public static void main(String[] a) throws Exception {
    LakeReader r = LakeReader.open(LakeConfig.of(a[0]));
    for (TableId t : r.tables()) {
      if (t.kind() == TableKind.SILVER_MEMORIES) {
        Map<String, Integer> states = new TreeMap<>(), bodies = new TreeMap<>(), activeIn = new TreeMap<>();
        for (Map<String, Object> row : r.rows(t)) {
          String state = String.valueOf(row.get("state"));
          states.merge(state, 1, Integer::sum);
          if (row.get("body") instanceof byte[] b && b.length > 0) bodies.merge(state, 1, Integer::sum);
          if ("active".equals(state)) activeIn.merge(String.valueOf(row.get("workarea_id")), 1, Integer::sum);
        }
        System.out.println(t + " states " + states + " with a body " + bodies + " active by workarea " + activeIn);
      } else if (t.kind() == TableKind.GOLD_WORKAREA_MEMORIES) {
        System.out.println(t + " rows " + r.rows(t).size());
      }
    }
  }
}
