package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.metrics.LakeWriterMetrics;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The example alert rules ({@code flink-conf/alerts/lakewriter-rules.yml}) parse as a Prometheus
 * rule file, and every metric an expression names is one the job exports ({@link
 * LakeWriterMetrics#exported()}): a renamed metric cannot leave a rule that never fires.
 * MetricsScrapeITCase checks the same names against a running job's endpoint.
 */
class AlertRulesTest {
  static final Path RULES = Path.of("..", "flink-conf", "alerts", "lakewriter-rules.yml");
  private static final Pattern METRIC = Pattern.compile("\\bflink_[A-Za-z0-9_:]+");

  /** The rules of the file, each as its YAML map. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rules() throws Exception {
    Object doc = new Load(LoadSettings.builder().build()).loadFromString(Files.readString(RULES));
    List<Map<String, Object>> rules = new ArrayList<>();
    for (Object group : (List<Object>) ((Map<String, Object>) doc).get("groups")) {
      rules.addAll((List<Map<String, Object>>) ((Map<String, Object>) group).get("rules"));
    }
    return rules;
  }

  /** Every metric name the rules' expressions use. */
  static Set<String> metricNames() throws Exception {
    Set<String> names = new TreeSet<>();
    for (Map<String, Object> rule : rules()) {
      Matcher m = METRIC.matcher((String) rule.get("expr"));
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  @Test
  void everyRuleIsAnAlertWithAnExpressionASeverityAndASummary() throws Exception {
    List<Map<String, Object>> rules = rules();
    assertThat(rules).hasSizeGreaterThanOrEqualTo(5);
    for (Map<String, Object> rule : rules) {
      assertThat(rule).as("rule %s", rule).containsKeys("alert", "expr", "labels", "annotations");
      assertThat((String) rule.get("alert")).matches("LakeWriter[A-Za-z]+");
      assertThat(((Map<?, ?>) rule.get("labels")).containsKey("severity")).as("severity").isTrue();
      assertThat(((Map<?, ?>) rule.get("annotations")).containsKey("summary"))
          .as("summary")
          .isTrue();
    }
    assertThat(rules)
        .extracting(r -> r.get("alert"))
        .contains(
            "LakeWriterNoCommit",
            "LakeWriterHorizonOld",
            "LakeWriterSlotRetainsTooMuchWal",
            "LakeWriterFrontierLag",
            "LakeWriterDeadLettersIncreasing");
  }

  @Test
  void everyMetricARuleUsesIsOneTheJobExports() throws Exception {
    Set<String> used = metricNames();
    assertThat(used).isNotEmpty();
    assertThat(LakeWriterMetrics.exported().keySet()).containsAll(used);
  }

  @Test
  void theThreeAlertsOfTheIssueUseTheirMetrics() throws Exception {
    Map<Object, String> exprByAlert = new java.util.HashMap<>();
    for (Map<String, Object> rule : rules()) {
      exprByAlert.put(rule.get("alert"), (String) rule.get("expr"));
    }
    assertThat(exprByAlert.get("LakeWriterNoCommit"))
        .contains(LakeWriterMetrics.prometheusName(LakeWriterMetrics.SECONDS_SINCE_LAST_COMMIT));
    assertThat(exprByAlert.get("LakeWriterHorizonOld"))
        .contains(LakeWriterMetrics.prometheusName(LakeWriterMetrics.HORIZON_AGE_SECONDS));
    assertThat(exprByAlert.get("LakeWriterSlotRetainsTooMuchWal"))
        .contains(LakeWriterMetrics.prometheusName(LakeWriterMetrics.SLOT_RETAINED_BYTES))
        .contains("1024^3");
  }
}
