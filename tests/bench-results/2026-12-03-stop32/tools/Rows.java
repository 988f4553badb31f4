import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
public class Rows {
  public static void main(String[] a) throws Exception {
    for (String f : a) {
      try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f), new Configuration()))) {
        long nullRemovePath = -1;
        var md = r.getFooter().getBlocks();
        long rows = r.getRecordCount();
        long removes = 0, adds = 0;
        for (var b : md) for (var c : b.getColumns()) {
          String p = c.getPath().toDotString();
          if (p.equals("remove.path")) removes += b.getRowCount() - c.getStatistics().getNumNulls();
          if (p.equals("add.path")) adds += b.getRowCount() - c.getStatistics().getNumNulls();
        }
        System.out.println(f.replaceAll(".*/lake-sust_l1/","") + " rows " + rows + " adds " + adds + " removes " + removes);
      }
    }
  }
}
