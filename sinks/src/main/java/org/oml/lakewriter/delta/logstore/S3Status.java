package org.oml.lakewriter.delta.logstore;

import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * The HTTP status behind an S3A failure. S3A translates SDK exceptions into {@code IOException}s
 * (412 becomes {@code RemoteFileChangedException}, 409 a generic service exception) and keeps the
 * SDK exception as the cause, whose status code is the one answer that does not depend on S3A's
 * translation table.
 */
final class S3Status {
  private S3Status() {}

  /** The status code of the first SDK service exception in the cause chain, or -1. */
  static int of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SdkServiceException) {
        return ((SdkServiceException) t).statusCode();
      }
      if (t instanceof org.apache.hadoop.fs.s3a.RemoteFileChangedException) {
        return 412; // S3A's translation of 412 when the SDK cause is absent
      }
    }
    return -1;
  }
}
