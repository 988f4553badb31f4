package org.oml.lakewriter.app;

/** A bad or unusable option. The message names the option and what is wrong with it. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
