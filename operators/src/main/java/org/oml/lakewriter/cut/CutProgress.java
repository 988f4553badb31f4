package org.oml.lakewriter.cut;

/**
 * The batch cut's progress: every row with {@code seq <= frontier} has been emitted in a batch;
 * every row with {@code seq <= horizon} has arrived (or can never commit). {@code bufferedRows}
 * counts the rows held above the frontier.
 */
public record CutProgress(long frontier, long horizon, long bufferedRows) {
  public static final CutProgress INITIAL = new CutProgress(0, 0, 0);

  public CutProgress {
    if (frontier > horizon) {
      throw new IllegalArgumentException(
          "frontier " + frontier + " cannot pass the horizon " + horizon);
    }
    if (bufferedRows < 0) {
      throw new IllegalArgumentException("bufferedRows " + bufferedRows);
    }
  }
}
