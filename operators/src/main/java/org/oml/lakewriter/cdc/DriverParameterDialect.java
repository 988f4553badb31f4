package org.oml.lakewriter.cdc;

import org.apache.flink.cdc.connectors.base.relational.connection.JdbcConnectionPoolFactory;
import org.apache.flink.cdc.connectors.postgres.source.PostgresDialect;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;

/**
 * Flink CDC's PostgreSQL dialect whose connection pool gets the URL's driver parameters ({@link
 * DriverParameterPoolFactory}). Everything else is Flink CDC's own.
 */
final class DriverParameterDialect extends PostgresDialect {
  private static final long serialVersionUID = 1L;

  DriverParameterDialect(PostgresSourceConfig sourceConfig) {
    super(sourceConfig);
  }

  @Override
  public JdbcConnectionPoolFactory getPooledDataSourceFactory() {
    return new DriverParameterPoolFactory();
  }
}
