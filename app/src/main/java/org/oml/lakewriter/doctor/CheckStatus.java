package org.oml.lakewriter.doctor;

/** The outcome of one doctor check, ordered from good to bad. */
public enum CheckStatus {
  /** Nothing to do. */
  OK,
  /** Needs attention soon; the lake stays correct meanwhile. */
  WARN,
  /** The lake is not being kept in step, or rows are (or will be) lost: act now. */
  FAIL;

  /** The worse of two outcomes. */
  public CheckStatus worst(CheckStatus other) {
    return other.ordinal() > ordinal() ? other : this;
  }
}
