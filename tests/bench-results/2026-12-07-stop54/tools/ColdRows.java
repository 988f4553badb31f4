import java.util.*;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.*;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.*;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Does writing a silver-like row into parquet-java's column writers cost more when the rows are
 * cold (each row visited once, out of a set far larger than the caches) than when they are hot
 * (the same few rows again and again)? And does writing column by column change it? Writes
 * "files" of FILE_ROWS rows the way SharedConfParquetWriter.FileRows does (a value or null per
 * column into ColumnWriter, endRecord per row), uncompressed, into memory, and prints ns per row.
 * Run: java -Xmx6g -cp "$(cat /tmp/b48/final54/bench.cp)" ColdRows.java
 */
public class ColdRows {
  static final int COLS = 16, FILE_ROWS = 1250, BODY = 1024;
  static final boolean[] LONG = new boolean[COLS];
  static final boolean[] NULLS = new boolean[COLS];
  static {
    LONG[1] = LONG[3] = LONG[11] = true; // version, seq, event_time
    NULLS[9] = true; // ratified_by: null in most rows
  }

  public static void main(String[] a) throws Exception {
    int cold = Integer.parseInt(a.length > 0 ? a[0] : "300000");
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (int c = 0; c < COLS; c++) {
      if (LONG[c]) b.optional(PrimitiveTypeName.INT64).named("c" + c);
      else if (c == COLS - 1) b.optional(PrimitiveTypeName.BINARY).named("c" + c);
      else b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("c" + c);
    }
    MessageType schema = b.named("m");
    ParquetProperties.Builder pb = ParquetProperties.builder();
    for (int c = 0; c < COLS; c++) if (c != 2 && c != 4) pb.withDictionaryEncoding("c" + c, false);
    ParquetProperties props = pb.build();
    CodecFactory codecs = new CodecFactory(new Configuration(), 1 << 20);
    Random r = new Random(1);
    Object[][] rows = new Object[cold][];
    for (int i = 0; i < cold; i++) rows[i] = row(r, i);
    Object[][] hot = Arrays.copyOf(rows, 64); // about 110 KB: stays in the caches
    for (int rep = 0; rep < 6; rep++) {
      System.out.printf("rep %d: hot row-major %.0f, cold row-major %.0f, cold column-major %.0f ns/row%n",
          rep, run(schema, props, codecs, hot, cold, false), run(schema, props, codecs, rows, cold, false),
          run(schema, props, codecs, rows, cold, true));
    }
  }

  static Object[] row(Random r, long i) {
    Object[] v = new Object[COLS];
    for (int c = 0; c < COLS; c++) {
      if (LONG[c]) v[c] = i * 7 + c;
      else if (c == COLS - 1) { byte[] body = new byte[BODY]; r.nextBytes(body); v[c] = body; }
      else if (NULLS[c] && (i % 10 != 0)) v[c] = null;
      else if (c == 2 || c == 4) v[c] = new String(c == 2 ? "active" : "tenant-3");
      else v[c] = UUID.randomUUID().toString();
    }
    return v;
  }

  /** Writes {@code total} rows taken in order from {@code rows} (wrapping), FILE_ROWS per file. */
  static double run(MessageType schema, ParquetProperties props, CodecFactory codecs, Object[][] rows,
      int total, boolean columnMajor) throws Exception {
    List<ColumnDescriptor> cols = schema.getColumns();
    long start = System.nanoTime();
    for (int first = 0; first < total; first += FILE_ROWS) {
      ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(
          codecs.getCompressor(CompressionCodecName.UNCOMPRESSED), schema, props.getAllocator(),
          props.getColumnIndexTruncateLength(), props.getPageWriteChecksumEnabled(), null, 0);
      ColumnWriteStore store = props.newColumnWriteStore(schema, pages, pages);
      ColumnWriter[] w = new ColumnWriter[COLS];
      for (int c = 0; c < COLS; c++) w[c] = store.getColumnWriter(cols.get(c));
      int n = Math.min(FILE_ROWS, total - first);
      if (columnMajor) {
        for (int c = 0; c < COLS; c++)
          for (int i = 0; i < n; i++) write(w[c], c, rows[(first + i) % rows.length][c]);
        for (int i = 0; i < n; i++) store.endRecord();
      } else {
        for (int i = 0; i < n; i++) {
          Object[] row = rows[(first + i) % rows.length];
          for (int c = 0; c < COLS; c++) write(w[c], c, row[c]);
          store.endRecord();
        }
      }
      store.flush();
      store.close();
      pages.close();
    }
    return (System.nanoTime() - start) / (double) total;
  }

  static void write(ColumnWriter w, int c, Object v) {
    if (v == null) w.writeNull(0, 0);
    else if (v instanceof Long l) w.write(l, 0, 1);
    else if (v instanceof String s) w.write(Binary.fromString(s), 0, 1);
    else w.write(Binary.fromConstantByteArray((byte[]) v), 0, 1);
  }
}
