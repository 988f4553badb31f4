package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import io.debezium.jdbc.JdbcConfiguration;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.jdbc.JdbcSettings;

/** Issue 11 item 14: the parameters of postgres.url reach the CDC source's connections too. */
class OutboxSourceTest {

  @Test
  void theUrlParametersReachDebeziumAsDatabaseProperties() {
    JdbcSettings jdbc =
        new JdbcSettings(
            Map.of("sslmode", "verify-full", "sslrootcert", "/etc/ca.pem", "socketTimeout", "30"),
            Duration.ofSeconds(5),
            Duration.ofSeconds(20));
    OutboxSourceOptions o =
        new OutboxSourceOptions(
            "db", 5432, "oml", "public", "lw", "secret", "slot", "pub", "w1",
            Duration.ofSeconds(1), 1 << 20, jdbc);

    Properties p = OutboxSource.debeziumProperties(o);

    assertThat(p.getProperty("database.sslmode")).isEqualTo("verify-full");
    assertThat(p.getProperty("database.sslrootcert")).isEqualTo("/etc/ca.pem");
    assertThat(p.getProperty("database.socketTimeout")).isEqualTo("30");
  }

  @Test
  void theCdcKnobsReachDebezium() {
    OutboxSourceOptions o =
        new OutboxSourceOptions(
            "db", 5432, "oml", "public", "lw", "secret", "slot", "pub", "w1",
            Duration.ofSeconds(1), 1 << 20, JdbcSettings.DEFAULT,
            new CdcTuning(10_000, 500, 1_000, 3_000, Duration.ofMillis(25)));

    Properties p = OutboxSource.debeziumProperties(o);

    assertThat(p.getProperty("max.batch.size")).isEqualTo("1000");
    assertThat(p.getProperty("max.queue.size")).isEqualTo("3000");
    assertThat(p.getProperty("poll.interval.ms")).isEqualTo("25");
    assertThat(OutboxSource.create(o)).isNotNull();
  }

  @Test
  void sideConnectionsGetTimeoutsAndTheUrlParametersWinOverTheOptions() {
    JdbcSettings jdbc =
        new JdbcSettings(
            JdbcSettings.parseQuery("sslmode=require&socketTimeout=0&ApplicationName=a%20b"),
            Duration.ofMillis(1500),
            Duration.ofSeconds(20));

    Properties p = jdbc.driverProperties("lw", "secret");

    assertThat(p.getProperty("connectTimeout")).isEqualTo("2"); // seconds, rounded up
    assertThat(p.getProperty("socketTimeout")).isEqualTo("0"); // the URL's explicit choice
    assertThat(p.getProperty("sslmode")).isEqualTo("require");
    assertThat(p.getProperty("ApplicationName")).isEqualTo("a b");
    assertThat(p.getProperty("user")).isEqualTo("lw");
    assertThat(jdbc.toString()).doesNotContain("require").contains("sslmode");
    assertThat(JdbcSettings.DEFAULT.driverProperties("u", null).getProperty("socketTimeout"))
        .isEqualTo("60");
  }

  /**
   * Issue 16: Flink CDC's chunk-splitting pool built its URL from host, port and database and
   * dropped every URL parameter; it now gets each pgjdbc parameter of the source's Debezium
   * properties, and sources that differ only in them do not share a pool.
   */
  @Test
  void theChunkSplittingPoolGetsTheUrlParametersToo() {
    Map<String, String> params =
        Map.of(
            "sslmode", "verify-full",
            "sslrootcert", "/etc/oml/ca.pem",
            "sslcert", "/etc/oml/writer.crt",
            "sslkey", "/etc/oml/writer.pk8",
            "connectTimeout", "7",
            "options", "-c statement_timeout=0");
    OutboxSourceOptions o = options(params);
    PostgresSourceConfig config = OutboxSource.builder(o, null).getConfigFactory().create(0);

    Properties pool = new DriverParameterPoolFactory().hikariConfig(config).getDataSourceProperties();

    params.forEach((k, v) -> assertThat(pool.getProperty(k)).as(k).isEqualTo(v));
    // Debezium's own settings (hostname, dbname, slot, ...) are no driver parameters, and the
    // credentials travel in the pool's own fields. (Flink CDC's own tcpKeepAlive=true is one, and
    // the pool gets it like Debezium's connections do.)
    assertThat(pool.stringPropertyNames())
        .doesNotContain("user", "password", "hostname", "dbname", "port")
        .containsAll(params.keySet());

    JdbcConfiguration jdbc = config.getDbzConnectorConfig().getJdbcConfig();
    JdbcConfiguration plainJdbc =
        OutboxSource.builder(options(Map.of()), null)
                .getConfigFactory()
                .create(0)
                .getDbzConnectorConfig()
                .getJdbcConfig();
    DriverParameterPoolFactory f = new DriverParameterPoolFactory();
    assertThat(f.getPoolId(jdbc, "id")).isNotEqualTo(f.getPoolId(plainJdbc, "id"));
    assertThat(f.getPoolId(jdbc, "id")).isEqualTo(f.getPoolId(jdbc, "id"));
    assertThat(f.getPoolId(jdbc, "id").toString()).doesNotContain("verify-full");

    assertThat(new DriverParameterDialect(config).getPooledDataSourceFactory())
        .isInstanceOf(DriverParameterPoolFactory.class);
  }

  private static OutboxSourceOptions options(Map<String, String> params) {
    return new OutboxSourceOptions(
        "db", 5432, "oml", "public", "lw", "secret", "slot", "pub", "w1",
        Duration.ofSeconds(1), 1 << 20,
        new JdbcSettings(params, Duration.ofSeconds(5), Duration.ofSeconds(20)));
  }
}
