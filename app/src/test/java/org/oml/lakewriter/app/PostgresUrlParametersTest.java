package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the TLS parameters of {@code postgres.url} reach every connection (side connections'
 * driver properties and the CDC source's options; the CDC mapping to Debezium {@code database.*}
 * and to Flink CDC's pool is pinned in operators' {@code OutboxSourceTest}), and a parameter that
 * pgjdbc would silently ignore is a named configuration error.
 */
class PostgresUrlParametersTest {
  private static final String BASE = "jdbc:postgresql://db.internal:5433/oml";

  private static LakeWriterConfig config(String query) {
    Map<String, String> o = new HashMap<>();
    o.put("postgres.url", BASE + query);
    o.put("lake.root", "/tmp/lake");
    return LakeWriterConfig.of(o, name -> null);
  }

  @Test
  void tlsParametersReachTheSideConnectionsAndTheCdcSource() {
    LakeWriterConfig cfg =
        config(
            "?sslmode=verify-full&sslrootcert=/etc/oml/ca.pem&sslcert=/etc/oml/w.crt"
                + "&sslkey=/etc/oml/w.pk8&connectTimeout=7&options=-c%20statement_timeout%3D0"
                + "&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory");
    Map<String, String> expected =
        Map.of(
            "sslmode", "verify-full",
            "sslrootcert", "/etc/oml/ca.pem",
            "sslcert", "/etc/oml/w.crt",
            "sslkey", "/etc/oml/w.pk8",
            "connectTimeout", "7",
            "options", "-c statement_timeout=0",
            "sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory");

    assertThat(cfg.connectionProperties()).containsAllEntriesOf(expected);
    assertThat(cfg.sourceOptions().jdbc().urlParameters()).isEqualTo(expected);
    assertThat(cfg.sourceOptions().jdbc().driverProperties("u", "p"))
        .containsAllEntriesOf(expected);
  }

  @Test
  void aMisspeltParameterIsANamedErrorWithASuggestion() {
    assertThatThrownBy(() -> config("?sslmdoe=verify-full"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("POSTGRES_URL_PARAMETER: option postgres.url:")
        .hasMessageContaining("'sslmdoe' is not a PostgreSQL JDBC driver parameter")
        .hasMessageContaining("did you mean 'sslmode'?");
  }

  @Test
  void aValueOutsideTheDriversChoicesIsANamedError() {
    assertThatThrownBy(() -> config("?sslmode=verify_full"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("POSTGRES_URL_PARAMETER")
        .hasMessageContaining("'sslmode' is 'verify_full'; pgjdbc accepts one of")
        .hasMessageContaining("verify-full");
  }

  @Test
  void parametersOwnedByOtherOptionsOrSecretAreRefused() {
    assertThatThrownBy(() -> config("?sslpassword=hunter2"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'sslpassword' is not accepted here")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> config("?currentSchema=x"))
        .hasMessageContaining("set postgres.schema instead");
    assertThatThrownBy(() -> config("?user=x")).hasMessageContaining("set postgres.user instead");
    assertThatThrownBy(() -> config("?replication=database"))
        .hasMessageContaining("'replication' is not accepted here");
  }

  @Test
  void everyPgjdbcParameterWithAnAcceptedValuePasses() {
    LakeWriterConfig cfg =
        config("?sslmode=require&ApplicationName=oml&tcpKeepAlive=true&socketTimeout=30");
    assertThat(cfg.connectionProperties()).containsEntry("ApplicationName", "oml");
  }
}
