package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;

/**
 * {@code metrics.prometheus.port}: parsing, the free port, and the reporter on the cluster's
 * configuration.
 */
class PrometheusEndpointTest {
  private static LakeWriterConfig config(String port) {
    return LakeWriterConfig.of(
        Map.of(
            "postgres.url", "jdbc:postgresql://localhost:5432/oml",
            "lake.root", "file:///tmp/lake",
            "metrics.prometheus.port", port),
        name -> null);
  }

  @Test
  void aPortARangeAndNone() {
    assertThat(PrometheusEndpoint.parse("9249"))
        .isEqualTo(new PrometheusEndpoint.Ports(9249, 9249));
    assertThat(PrometheusEndpoint.parse(" 9249-9259 "))
        .isEqualTo(new PrometheusEndpoint.Ports(9249, 9259));
    assertThat(PrometheusEndpoint.parse("none")).isNull();
    assertThat(PrometheusEndpoint.parse("0")).isNull();
    for (String bad : new String[] {"abc", "9259-9249", "70000", "-1", "9249-"}) {
      assertThatThrownBy(() -> PrometheusEndpoint.parse(bad))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("metrics.prometheus.port = " + bad);
    }
  }

  @Test
  void theReporterGoesOnTheConfigurationAtTheFirstFreePortOfTheRange() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(0));
      int busy = taken.getLocalPort();
      Configuration conf = new Configuration();
      OptionalInt port = PrometheusEndpoint.configure(config(busy + "-" + (busy + 20)), conf);
      assertThat(port).isPresent();
      assertThat(port.getAsInt()).isGreaterThan(busy);
      assertThat(conf.toMap())
          .containsEntry("metrics.reporter.prom.factory.class", PrometheusEndpoint.FACTORY)
          .containsEntry("metrics.reporter.prom.port", Integer.toString(port.getAsInt()));
      // The factory is on the command line's classpath (app's provided scope).
      assertThat(Class.forName(PrometheusEndpoint.FACTORY)).isNotNull();

      assertThatThrownBy(() -> PrometheusEndpoint.configure(config(Integer.toString(busy)), conf))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("METRICS_PORT_IN_USE: metrics.prometheus.port = " + busy);
    }
  }

  @Test
  void noneOpensNoEndpoint() {
    Configuration conf = new Configuration();
    assertThat(PrometheusEndpoint.configure(config("none"), conf)).isEmpty();
    assertThat(conf.toMap()).doesNotContainKey("metrics.reporter.prom.factory.class");
  }

  @Test
  void theSessionClustersConfigurationEnablesTheSameReporter() {
    Configuration conf =
        GlobalConfiguration.loadConfiguration(Path.of("..", "flink-conf").toString());
    assertThat(conf.toMap())
        .containsEntry("metrics.reporter.prom.factory.class", PrometheusEndpoint.FACTORY)
        .containsEntry("metrics.reporter.prom.port", "9249-9259");
  }
}
