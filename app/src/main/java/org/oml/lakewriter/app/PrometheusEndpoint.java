package org.oml.lakewriter.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Locale;
import java.util.OptionalInt;
import org.apache.flink.configuration.Configuration;

/**
 * The Prometheus endpoint of {@code lakewriter run}: Flink's Prometheus reporter on the in-process
 * MiniCluster, at the port {@code metrics.prometheus.port} names (see {@code docs/metrics.md}).
 *
 * <p>The port is chosen here, not by the reporter: a reporter that finds its port taken logs an
 * error and the job runs without metrics, which an operator learns only when the scrape fails. So
 * the first free port of the range is picked, the reporter is given exactly that one, and the
 * command prints it; a range with no free port refuses to start (METRICS_PORT_IN_USE).
 */
public final class PrometheusEndpoint {
  /** The reporter's name in Flink's configuration: {@code metrics.reporter.prom.*}. */
  public static final String REPORTER = "prom";

  public static final String FACTORY =
      "org.apache.flink.metrics.prometheus.PrometheusReporterFactory";

  /** An inclusive port range; one port is a range of one. */
  record Ports(int from, int to) {}

  private PrometheusEndpoint() {}

  /**
   * Puts the reporter on {@code conf} at the first free port of the option's range.
   *
   * @return the port, or empty when the option is {@code none} or 0
   * @throws ConfigException METRICS_PORT_IN_USE when no port of the range is free, or a malformed
   *     value, naming the option
   */
  public static OptionalInt configure(LakeWriterConfig cfg, Configuration conf) {
    String value = cfg.get(LakeWriterOptions.METRICS_PROMETHEUS_PORT);
    Ports ports = parse(value);
    if (ports == null) {
      return OptionalInt.empty();
    }
    int port = firstFree(ports, value);
    conf.setString("metrics.reporter." + REPORTER + ".factory.class", FACTORY);
    conf.setString("metrics.reporter." + REPORTER + ".port", Integer.toString(port));
    return OptionalInt.of(port);
  }

  /** The range the option names; null for {@code none} or 0. */
  static Ports parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("none") || v.equals("0")) {
      return null;
    }
    try {
      int dash = v.indexOf('-');
      int from = Integer.parseInt(dash < 0 ? v : v.substring(0, dash).trim());
      int to = dash < 0 ? from : Integer.parseInt(v.substring(dash + 1).trim());
      if (from < 1 || to > 65535 || from > to) {
        throw new NumberFormatException("out of range");
      }
      return new Ports(from, to);
    } catch (NumberFormatException e) {
      throw new ConfigException(
          LakeWriterOptions.METRICS_PROMETHEUS_PORT.key() + " = " + value + ": not a port (9249),"
              + " a range (9249-9259) or none");
    }
  }

  private static int firstFree(Ports ports, String value) {
    for (int port = ports.from(); port <= ports.to(); port++) {
      if (free(port)) {
        return port;
      }
    }
    throw new ConfigException(
        "METRICS_PORT_IN_USE: " + LakeWriterOptions.METRICS_PROMETHEUS_PORT.key() + " = " + value
            + ": no port of it is free on this host (another writer or exporter listens there);"
            + " set another port or range, or none to open no Prometheus endpoint");
  }

  private static boolean free(int port) {
    // The reporter's HTTP server binds the wildcard address, so check that one.
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
