package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import java.util.List;

/** A Kernel engine that hands every handler over from another; subclasses replace some. */
abstract class ForwardingEngine implements Engine {
  protected final Engine delegate;

  ForwardingEngine(Engine delegate) {
    this.delegate = delegate;
  }

  @Override
  public ExpressionHandler getExpressionHandler() {
    return delegate.getExpressionHandler();
  }

  @Override
  public JsonHandler getJsonHandler() {
    return delegate.getJsonHandler();
  }

  @Override
  public FileSystemClient getFileSystemClient() {
    return delegate.getFileSystemClient();
  }

  @Override
  public ParquetHandler getParquetHandler() {
    return delegate.getParquetHandler();
  }

  @Override
  public List<MetricsReporter> getMetricsReporters() {
    return delegate.getMetricsReporters();
  }
}
