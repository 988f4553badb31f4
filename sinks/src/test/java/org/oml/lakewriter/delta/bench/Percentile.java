package org.oml.lakewriter.delta.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The benchmarks' nearest-rank percentile. */
final class Percentile {
  private Percentile() {}

  /** The nearest-rank {@code p}th percentile of {@code values}; NaN for none. */
  static double of(List<Double> values, int p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
