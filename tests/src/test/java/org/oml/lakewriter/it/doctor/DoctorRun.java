package org.oml.lakewriter.it.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.it.support.CliRun;

/** {@code lakewriter doctor --json} run in this JVM, and its checks looked up by name. */
record DoctorRun(int exitCode, JsonNode doc, String printed) {

  static DoctorRun run(Map<String, String> options, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("doctor", "--json"));
    args.addAll(List.of(extra));
    args.addAll(CliRun.defines(options));
    CliRun.Result r = CliRun.run(args);
    assertThat(r.err()).as(r.out()).isEmpty();
    return new DoctorRun(r.exitCode(), new ObjectMapper().readTree(r.out()), r.out());
  }

  JsonNode check(String name) {
    for (JsonNode c : doc.get("checks")) {
      if (c.get("name").asText().equals(name)) {
        return c;
      }
    }
    throw new AssertionError("doctor has no check " + name + ": " + printed);
  }

  String status(String name) {
    return check(name).get("status").asText();
  }

  String finding(String name) {
    return check(name).get("finding").asText();
  }

  String fix(String name) {
    return check(name).get("fix").asText();
  }
}
