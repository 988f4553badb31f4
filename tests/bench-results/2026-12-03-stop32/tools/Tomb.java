import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.example.data.Group;
import org.apache.hadoop.fs.Path;
public class Tomb {
  public static void main(String[] a) throws Exception {
    try (ParquetReader<Group> r = ParquetReader.builder(new GroupReadSupport(), new Path(a[0])).build()) {
      Group g;
      while ((g = r.read()) != null) {
        if (g.getFieldRepetitionCount("remove") > 0) {
          Group rm = g.getGroup("remove", 0);
          System.out.println(rm.getString("path", 0) + " " + (rm.getFieldRepetitionCount("deletionTimestamp") > 0 ? rm.getLong("deletionTimestamp", 0) : -1));
        }
      }
    }
  }
}
