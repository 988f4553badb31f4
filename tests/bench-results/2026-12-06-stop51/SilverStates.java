import java.util.*;
import org.oml.lakewriter.delta.*;
import org.oml.lakewriter.delta.read.LakeReader;
public class SilverStates {
  public static void main(String[] a) throws Exception {
    LakeReader r = LakeReader.open(LakeConfig.of(a[0]));
    for (TableId t : r.tables()) {
      if (t.kind() != TableKind.SILVER_MEMORIES) continue;
      Map<String,Integer> states = new TreeMap<>(); int bodies = 0;
      for (Map<String,Object> row : r.rows(t)) {
        states.merge(String.valueOf(row.get("state")), 1, Integer::sum);
        if (row.get("body") instanceof byte[] b && b.length > 0) bodies++;
      }
      System.out.println(t + " " + states + " rows with a body " + bodies);
    }
  }
}
