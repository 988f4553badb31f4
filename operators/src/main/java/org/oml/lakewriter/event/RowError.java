package org.oml.lakewriter.event;

import java.util.Objects;

/** The error marker a row carries through the cut, so that the dead-letter path can route it. */
public record RowError(ErrorClass errorClass, String message) {
  public RowError {
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(message, "message");
  }
}
