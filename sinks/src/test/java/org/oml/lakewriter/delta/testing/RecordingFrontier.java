package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.List;
import org.oml.lakewriter.delta.frontier.FrontierListener;

/** Remembers every frontier it is told, in order. */
public final class RecordingFrontier implements FrontierListener {
  private static final long serialVersionUID = 1L;

  private final List<Long> reported = new ArrayList<>();

  @Override
  public void frontierAdvanced(long frontierSeq) {
    reported.add(frontierSeq);
  }

  public List<Long> reported() {
    return reported;
  }
}
