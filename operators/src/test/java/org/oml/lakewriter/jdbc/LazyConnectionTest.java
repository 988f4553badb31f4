package org.oml.lakewriter.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LazyConnectionTest {
  /** A hand-written fake connection: remembers close() and the autocommit it was given. */
  private static final class Fake {
    boolean closed;
    Boolean autoCommit;
    final Connection connection =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "close":
                      closed = true;
                      return null;
                    case "isClosed":
                      return closed;
                    case "setAutoCommit":
                      autoCommit = (Boolean) args[0];
                      return null;
                    default:
                      throw new UnsupportedOperationException(method.getName());
                  }
                });
  }

  private final List<Fake> opened = new ArrayList<>();
  private final LazyConnection lazy =
      new LazyConnection(
          () -> {
            Fake fake = new Fake();
            opened.add(fake);
            return fake.connection;
          },
          false);

  @Test
  void opensOnFirstUseOnceAndSetsAutoCommit() throws Exception {
    assertThat(opened).isEmpty();
    Connection first = lazy.get();
    assertThat(lazy.get()).isSameAs(first);
    assertThat(opened).hasSize(1);
    assertThat(opened.get(0).autoCommit).isFalse();
  }

  @Test
  void discardClosesAndTheNextUseReconnects() throws Exception {
    Connection first = lazy.get();
    lazy.discard();
    assertThat(opened.get(0).closed).isTrue();
    assertThat(lazy.get()).isNotSameAs(first);
    assertThat(opened).hasSize(2);
  }

  @Test
  void aConnectionClosedUnderneathIsReplaced() throws Exception {
    Connection first = lazy.get();
    first.close();
    assertThat(lazy.get()).isNotSameAs(first);
    lazy.close();
    assertThat(opened.get(1).closed).isTrue();
  }
}
