package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
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
}
