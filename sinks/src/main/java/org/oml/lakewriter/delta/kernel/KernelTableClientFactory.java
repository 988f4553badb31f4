package org.oml.lakewriter.delta.kernel;

import java.io.IOException;
import java.util.Objects;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.LakeConfig;

/** Makes a {@link KernelDeltaTableClient} for a lake, on whichever task manager asks. */
public final class KernelTableClientFactory implements DeltaTableClientFactory {
  private static final long serialVersionUID = 1L;

  private final LakeConfig lake;

  public KernelTableClientFactory(LakeConfig lake) {
    this.lake = Objects.requireNonNull(lake, "lake");
  }

  @Override
  public DeltaTableClient create() throws IOException {
    return new KernelDeltaTableClient(lake);
  }

  public LakeConfig lake() {
    return lake;
  }

  @Override
  public String toString() {
    return "KernelTableClientFactory{" + lake + "}";
  }
}
