package org.oml.lakewriter.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * No Docker engine runs on the build machine, so {@code docker/} is checked here for what can be
 * checked without one: {@code compose.yaml} parses; every host path it mounts exists; the
 * Dockerfile starts from the official Flink 1.20 Java 17 image and copies the jar the build makes
 * (the shaded {@code -job} jar of this version); the submission runs {@code flink run} on that
 * jar's path in the image with arguments {@code LakeWriterJob.main} takes; every key of the
 * mounted properties is a {@link LakeWriterOptions} key; PostgreSQL runs with logical WAL and
 * gets the contract SQL the job ships, then its publication, at init.
 */
class DockerComposeTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOCKER = ROOT.resolve("docker");

  @SuppressWarnings("unchecked")
  private static Map<String, Object> compose() throws IOException {
    Load load = new Load(LoadSettings.builder().build());
    return (Map<String, Object>) load.loadFromString(Files.readString(DOCKER.resolve("compose.yaml")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> service(String name) throws IOException {
    Map<String, Object> services = (Map<String, Object>) compose().get("services");
    assertThat(services).as("services of compose.yaml").containsKey(name);
    return (Map<String, Object>) services.get(name);
  }

  @SuppressWarnings("unchecked")
  private static List<String> list(Object o) {
    return o == null ? List.of() : (List<String>) o;
  }

  private static String jarName() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher m =
        Pattern.compile("<artifactId>oml-lakewriter-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertThat(m.find()).as("version in pom.xml").isTrue();
    return "oml-lakewriter-app-" + m.group(1) + "-job.jar";
  }

  /** The Dockerfile's COPY lines, source to destination. */
  private static List<String[]> copies() throws IOException {
    List<String[]> copies = new ArrayList<>();
    for (String line : Files.readAllLines(DOCKER.resolve("Dockerfile"))) {
      if (line.startsWith("COPY ")) {
        String[] parts = line.trim().split("\\s+");
        copies.add(new String[] {parts[1], parts[2]});
      }
    }
    return copies;
  }

  @Test
  void theImageIsTheOfficialFlink120Java17WithTheJobJarTheBuildMakes() throws IOException {
    List<String> from =
        Files.readAllLines(DOCKER.resolve("Dockerfile")).stream()
            .filter(l -> l.startsWith("FROM "))
            .toList();
    assertThat(from).containsExactly("FROM flink:1.20-java17");
    assertThat(copies())
        .anySatisfy(
            c -> {
              assertThat(c[0]).isEqualTo("app/target/" + jarName());
              assertThat(c[1]).startsWith("/opt/flink/usrlib/");
            })
        .anySatisfy(
            c -> {
              assertThat(c[0]).isEqualTo("flink-conf/config.yaml");
              assertThat(ROOT.resolve(c[0])).isRegularFile();
            });
    // The shade plugin's classifier and the entry point the jar's manifest names.
    String appPom = Files.readString(ROOT.resolve("app/pom.xml"));
    assertThat(appPom)
        .contains("<shadedClassifierName>job</shadedClassifierName>")
        .contains("<mainClass>" + LakeWriterJob.class.getName() + "</mainClass>");
  }

  @Test
  void everyFlinkServiceUsesTheImageAndRunsARealEntryPoint() throws IOException {
    Map<String, Object> jm = service("jobmanager");
    @SuppressWarnings("unchecked")
    Map<String, Object> build = (Map<String, Object>) jm.get("build");
    assertThat(DOCKER.resolve(String.valueOf(build.get("context"))).resolve(String.valueOf(build.get("dockerfile"))))
        .isRegularFile();
    String image = String.valueOf(jm.get("image"));
    assertThat(list(jm.get("command"))).containsExactly("jobmanager");
    assertThat(service("taskmanager").get("image")).isEqualTo(image);
    assertThat(list(service("taskmanager").get("command"))).containsExactly("taskmanager");
    assertThat(service("submit").get("image")).isEqualTo(image);
  }

  @Test
  void theSubmissionRunsTheBakedJarWithArgumentsLakeWriterJobTakes() throws IOException {
    List<String> command = list(service("submit").get("command"));
    assertThat(command.subList(0, 2)).containsExactly("flink", "run");
    String jarInImage =
        copies().stream().filter(c -> c[0].endsWith("-job.jar")).findFirst().orElseThrow()[1];
    int jarAt = command.indexOf(jarInImage);
    assertThat(jarAt).as("flink run names the jar the Dockerfile copies: " + command).isPositive();
    Set<String> known = new HashSet<>(List.of("config", LakeWriterJob.ACCEPT_LOST_SLOT));
    LakeWriterOptions.ALL.forEach(o -> known.add(o.key()));
    String configInContainer = null;
    for (int i = jarAt + 1; i < command.size(); i++) {
      String arg = command.get(i);
      if (arg.startsWith("--")) {
        assertThat(known).as("job option " + arg).contains(arg.substring(2));
        if (arg.equals("--config")) {
          configInContainer = command.get(i + 1);
        }
      }
    }
    assertThat(configInContainer).as("--config FILE").isNotNull();
    Path hostConfig = hostPathMountedAt(service("submit"), configInContainer);
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(hostConfig)) {
      p.load(in);
    }
    for (String key : p.stringPropertyNames()) {
      assertThat(known).as("key " + key + " of " + hostConfig).contains(key);
    }
    // The password file the properties name is the secret compose mounts.
    assertThat(p.getProperty("postgres.password-file")).isEqualTo("/run/secrets/pg_password");
    assertThat(list(service("submit").get("secrets"))).contains("pg_password");
    assertThat(p.getProperty("postgres.url")).startsWith("jdbc:postgresql://postgres:5432/");
  }

  @Test
  void postgresHasLogicalWalAndTheShippedContractAtInit() throws IOException {
    Map<String, Object> pg = service("postgres");
    assertThat(String.join(" ", list(pg.get("command")))).contains("wal_level=logical");
    Path contract = hostPathMountedAt(pg, "/docker-entrypoint-initdb.d/10-outbox-contract.sql");
    assertThat(contract)
        .isEqualTo(ROOT.resolve("app/src/main/resources/org/oml/lakewriter/contract/outbox-contract.sql"));
    Path publication = hostPathMountedAt(pg, "/docker-entrypoint-initdb.d/20-oml-publication.sql");
    assertThat(Files.readString(publication))
        .contains("CREATE PUBLICATION " + LakeWriterOptions.PUBLICATION.defaultValue()
            + " FOR TABLE public.oml_outbox, public.oml_lake_horizon");
  }

  @Test
  void everyHostPathThatComposeMountsExists() throws IOException {
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> services =
        (Map<String, Map<String, Object>>) compose().get("services");
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      for (String volume : list(s.getValue().get("volumes"))) {
        String source = volume.split(":")[0];
        if (source.startsWith(".")) {
          assertThat(DOCKER.resolve(source)).as(s.getKey() + " mounts " + source).exists();
        }
      }
    }
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> secrets =
        (Map<String, Map<String, Object>>) compose().get("secrets");
    secrets.values().forEach(v -> assertThat(DOCKER.resolve(String.valueOf(v.get("file")))).exists());
  }

  private static Path hostPathMountedAt(Map<String, Object> service, String target) {
    for (String volume : list(service.get("volumes"))) {
      String[] parts = volume.split(":");
      if (parts.length >= 2 && parts[1].equals(target)) {
        Path host = DOCKER.resolve(parts[0]).normalize();
        assertThat(host).as(volume).isRegularFile();
        return host;
      }
    }
    throw new AssertionError("nothing mounted at " + target + " in " + service.get("volumes"));
  }
}
