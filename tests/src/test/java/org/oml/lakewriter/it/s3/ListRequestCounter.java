package org.oml.lakewriter.it.s3;

import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * Counts the LIST requests of S3A's SDK client. S3A adds it to its client when it is named in
 * {@code fs.s3a.audit.execution.interceptors}; requests made through that client outside S3A's
 * own calls count too.
 */
public final class ListRequestCounter implements ExecutionInterceptor {
  public static final AtomicInteger LISTS = new AtomicInteger();

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof ListObjectsV2Request) {
      LISTS.incrementAndGet();
    }
  }
}
