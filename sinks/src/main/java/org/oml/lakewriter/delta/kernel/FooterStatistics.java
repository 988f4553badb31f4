package org.oml.lakewriter.delta.kernel;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * The Delta statistics of a Parquet file from the footer its writer holds in memory after closing
 * it: what Kernel 4.4.0's {@code ParquetStatsReader} computes from the same footer read back from
 * the file, without serialising the footer and parsing it again.
 *
 * <p>Invariants, each Kernel's ({@code ParquetWriterParityITCase} and {@code
 * ParquetFooterFromMemoryTest} compare the two on every table kind):
 *
 * <ul>
 *   <li>Each chunk's statistics go through the converter the writer serialises them with and the
 *       one a reader parses them with ({@code toParquetStatistics} with the writer's truncate
 *       length, then {@code fromParquetStatistics} with the file's {@code created_by}), so a min or
 *       max the footer would not carry (over parquet-java's size limit) is missing here too.
 *   <li>A column's row groups are merged; a column of which any row group has no statistics, no
 *       null count, or (NaN) no min/max while holding values gets no statistics at all.
 *   <li>A column whose values are all null has null min and max; otherwise min and max are
 *       decoded as Kernel decodes them for our column types (long, int, timestamp in
 *       microseconds, string as UTF-8, binary). Any other type is refused, never approximated.
 * </ul>
 */
final class FooterStatistics {
  /** parquet-java's default; neither Kernel's writer nor ours sets another. */
  private static final int TRUNCATE_LENGTH = ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH;

  private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

  private FooterStatistics() {}

  static DataFileStatistics of(
      ParquetMetadata footer, StructType schema, List<Column> statsColumns) {
    String createdBy = footer.getFileMetaData().getCreatedBy();
    long rowCount = 0;
    Map<Column, List<ColumnChunkMetaData>> chunks = new HashMap<>();
    for (BlockMetaData block : footer.getBlocks()) {
      rowCount += block.getRowCount();
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        chunks
            .computeIfAbsent(new Column(chunk.getPath().toArray()), c -> new ArrayList<>())
            .add(chunk);
      }
    }
    Map<Column, Literal> minValues = new HashMap<>();
    Map<Column, Literal> maxValues = new HashMap<>();
    Map<Column, Long> nullCounts = new HashMap<>();
    for (Column column : statsColumns) {
      List<ColumnChunkMetaData> ofColumn = chunks.get(column);
      if (ofColumn == null) {
        continue;
      }
      Optional<Statistics<?>> merged = merged(createdBy, ofColumn);
      if (merged.isEmpty()) {
        continue;
      }
      DataType type = typeOf(schema, column);
      Statistics<?> stats = merged.get();
      Long nulls = stats.isNumNullsSet() ? stats.getNumNulls() : null;
      nullCounts.put(column, nulls);
      if (nulls != null && nulls == rowCount) {
        minValues.put(column, Literal.ofNull(type));
        maxValues.put(column, Literal.ofNull(type));
        continue;
      }
      minValues.put(column, decode(type, stats, true));
      maxValues.put(column, decode(type, stats, false));
    }
    return new DataFileStatistics(rowCount, minValues, maxValues, nullCounts, Optional.empty());
  }

  /** The column's statistics as a reader of the file would see them, merged over row groups. */
  private static Optional<Statistics<?>> merged(
      String createdBy, List<ColumnChunkMetaData> ofColumn) {
    Statistics<?> merged = null;
    for (ColumnChunkMetaData chunk : ofColumn) {
      Statistics<?> written = chunk.getStatistics();
      Statistics<?> read =
          written == null
              ? null
              : CONVERTER.fromParquetStatistics(
                  createdBy,
                  ParquetMetadataConverter.toParquetStatistics(written, TRUNCATE_LENGTH),
                  chunk.getPrimitiveType());
      if (read == null
          || read.isEmpty()
          || !read.isNumNullsSet()
          || (!read.hasNonNullValue() && read.getNumNulls() != chunk.getValueCount())) {
        return Optional.empty();
      }
      if (merged == null) {
        merged = read;
      } else {
        merged.mergeStatistics(read);
      }
    }
    return Optional.ofNullable(merged);
  }

  private static DataType typeOf(StructType schema, Column column) {
    String[] names = column.getNames();
    if (names.length != 1) {
      throw new IllegalArgumentException("nested statistics column " + column);
    }
    return schema.get(names[0]).getDataType();
  }

  private static Literal decode(DataType type, Statistics<?> stats, boolean min) {
    Object value = min ? stats.genericGetMin() : stats.genericGetMax();
    if (value == null) {
      return null;
    }
    if (type instanceof LongType) {
      return Literal.ofLong(((Number) value).longValue());
    } else if (type instanceof IntegerType) {
      return Literal.ofInt(((Number) value).intValue());
    } else if (type instanceof TimestampType) {
      return Literal.ofTimestamp((Long) value);
    } else if (type instanceof StringType) {
      return Literal.ofString(new String(min ? stats.getMinBytes() : stats.getMaxBytes(), UTF_8));
    } else if (type instanceof BinaryType) {
      return Literal.ofBinary(min ? stats.getMinBytes() : stats.getMaxBytes());
    }
    throw new IllegalArgumentException(
        "statistics of type " + type + " are not decoded here; add it next to Kernel's decoding");
  }
}
