package org.oml.lakewriter.cut;

import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxChange;

/**
 * The operator that runs {@link BatchCutFunction} in the job: Flink's keyed process operator, plus
 * the one thing a function cannot do for itself, setting the key of the keyed state at a
 * checkpoint. With it the cut defers writing the rows it holds in heap until a checkpoint, and
 * writes them just before the keyed state is snapshot (see {@link BatchCutFunction}). Its timers,
 * state names and serializers are the keyed process operator's and the function's, so a savepoint
 * of the plain operator restores into this one under the same uid.
 */
public final class CutOperator extends KeyedProcessOperator<String, OutboxChange, Batch> {
  private static final long serialVersionUID = 1L;

  public CutOperator(BatchCutFunction cut) {
    super(cut);
  }

  @Override
  public void open() throws Exception {
    super.open();
    cut().writeBehind(this::underKey);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    // Before the function's and the backends' snapshots: the keyed state then holds every row
    // the cut buffers at this checkpoint.
    cut().flushDeferred();
    super.snapshotState(context);
  }

  private BatchCutFunction cut() {
    return (BatchCutFunction) getUserFunction();
  }

  private void underKey(String key, org.apache.flink.util.function.ThrowingRunnable<Exception> work)
      throws Exception {
    Object previous = getCurrentKey();
    setCurrentKey(key);
    try {
      work.run();
    } finally {
      if (previous != null) {
        setCurrentKey(previous);
      }
    }
  }
}
