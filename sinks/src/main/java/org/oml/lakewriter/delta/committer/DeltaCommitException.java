package org.oml.lakewriter.delta.committer;

/** Why the committer gave up on a batch for a known, permanent reason; the message says what. */
public final class DeltaCommitException extends Exception {
  private static final long serialVersionUID = 1L;

  public DeltaCommitException(String message, Throwable cause) {
    super(message, cause);
  }
}
