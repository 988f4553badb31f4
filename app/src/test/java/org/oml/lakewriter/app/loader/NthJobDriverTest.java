package org.oml.lakewriter.app.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: the N-th job on one JobManager (or TaskManager), each in its own child-first class
 * loader, still gets a PostgreSQL driver. Before the fix {@code Preflight.connect} went through
 * {@code DriverManager}, which serves a caller only a driver registered from the caller's own
 * loader, and failed with "No suitable driver found for jdbc:postgresql".
 */
class NthJobDriverTest {

  @Test
  void preflightOfEveryJobFindsItsDriver() throws Exception {
    for (int job = 1; job <= 3; job++) {
      String message = probe("preflight");
      assertThat(message)
          .as("job %d", job)
          .doesNotContain("No suitable driver")
          .contains("cannot reach PostgreSQL at postgres.url")
          .containsIgnoringCase("refused");
    }
  }

  @Test
  void theLeaseKeeperOfEveryJobFindsItsDriver() throws Exception {
    for (int job = 1; job <= 3; job++) {
      assertThat(probe("lease"))
          .as("job %d", job)
          .doesNotContain("No suitable driver")
          .startsWith("LEASE_UNAVAILABLE")
          .containsIgnoringCase("refused");
    }
  }

  @Test
  void theCdcSourcesDriverManagerCallsFindTheDriverOnceTheDeserializerIsLoaded() throws Exception {
    for (int job = 1; job <= 3; job++) {
      assertThat(probe("cdc"))
          .as("job %d", job)
          .doesNotContain("No suitable driver")
          .containsIgnoringCase("refused");
    }
  }

  @Test
  void driverManagerCallersInTheJobsLoaderFindItsDriverOnceRegistered() throws Exception {
    for (int job = 1; job <= 3; job++) {
      assertThat(probe("driver-manager"))
          .as("job %d", job)
          .doesNotContain("No suitable driver")
          .containsIgnoringCase("refused");
    }
  }

  @SuppressWarnings("unchecked")
  private static String probe(String how) throws Exception {
    try (ChildFirstLoader loader = new ChildFirstLoader()) {
      Function<String, String> probe =
          (Function<String, String>)
              loader
                  .loadClass(DriverProbe.class.getName())
                  .getDeclaredConstructor()
                  .newInstance();
      assertThat(probe.getClass().getClassLoader()).isSameAs(loader);
      return probe.apply(how);
    }
  }
}
