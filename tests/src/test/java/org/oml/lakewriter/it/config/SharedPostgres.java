package org.oml.lakewriter.it.config;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * One embedded PostgreSQL (wal_level=logical) shared by the configuration tests that need an
 * ordinary server: resolves an {@link EmbeddedPostgresServer} parameter, started on first use
 * and stopped when the whole test run ends. Tests isolate themselves by database and slot name.
 */
final class SharedPostgres implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedPostgres.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == EmbeddedPostgresServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent("server", k -> new Running(EmbeddedPostgresServer.start()), Running.class)
        .server;
  }

  private record Running(EmbeddedPostgresServer server)
      implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      server.close();
    }
  }
}
