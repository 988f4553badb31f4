package org.oml.lakewriter.it.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;

/** One scrape of a Prometheus text endpoint: its samples, looked up by name and label. */
final class PrometheusScrape {
  /** One sample line: {@code name{labels} value}. */
  record Sample(String name, String labels, double value) {}

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final String text;
  final List<Sample> samples = new ArrayList<>();

  private PrometheusScrape(String text) {
    this.text = text;
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      String name = line.substring(0, brace >= 0 && brace < space ? brace : line.indexOf(' '));
      String labels =
          brace >= 0 && brace < space ? line.substring(brace + 1, line.lastIndexOf('}')) : "";
      samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
    }
  }

  static PrometheusScrape of(int port) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new AssertionError("GET /metrics: HTTP " + response.statusCode());
    }
    return new PrometheusScrape(response.body());
  }

  Set<String> names() {
    Set<String> names = new TreeSet<>();
    samples.forEach(s -> names.add(s.name()));
    return names;
  }

  /** The largest value of the series {@code name} whose labels contain every fragment. */
  OptionalDouble max(String name, String... labelFragments) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(
            s -> {
              for (String f : labelFragments) {
                if (!s.labels().contains(f)) {
                  return false;
                }
              }
              return true;
            })
        .mapToDouble(Sample::value)
        .max();
  }

  /** Like {@link #max}, failing when there is no such series. */
  double value(String name, String... labelFragments) {
    OptionalDouble v = max(name, labelFragments);
    if (v.isEmpty()) {
      throw new AssertionError(
          "no series " + name + " with labels " + List.of(labelFragments) + " in the scrape:\n"
              + text);
    }
    return v.getAsDouble();
  }
}
