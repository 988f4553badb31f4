package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** The lines one class logs at WARN and above while open (log4j 2, the tests' binding). */
public final class CapturedLog extends AbstractAppender implements AutoCloseable {
  private final Logger logger;
  private final List<String> lines = new ArrayList<>();

  private CapturedLog(Logger logger) {
    super("captured-" + logger.getName(), null, null, true, Property.EMPTY_ARRAY);
    this.logger = logger;
  }

  public static CapturedLog of(Class<?> type) {
    CapturedLog log = new CapturedLog((Logger) LogManager.getLogger(type));
    log.start();
    log.logger.addAppender(log);
    return log;
  }

  @Override
  public synchronized void append(LogEvent event) {
    if (event.getLevel().isMoreSpecificThan(Level.WARN)) {
      lines.add(event.getMessage().getFormattedMessage());
    }
  }

  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    logger.removeAppender(this);
    stop();
  }
}
