package org.oml.lakewriter.app;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.postgresql.PGProperty;

/**
 * Checks the parameters of {@code postgres.url} before anything connects. Every parameter reaches
 * every connection of the lake writer: the side connections as pgjdbc driver properties ({@code
 * JdbcSettings}), the CDC source as Debezium {@code database.<name>} properties, and Flink CDC's
 * chunk-splitting pool through {@code DriverParameterPoolFactory} (docs/postgres-tls.md).
 *
 * <p>Invariant: a parameter is either a pgjdbc driver parameter ({@link PGProperty}) with a value
 * the driver accepts, or the configuration is refused with {@code POSTGRES_URL_PARAMETER} naming
 * it. pgjdbc itself ignores a name it does not know, so a misspelt {@code sslmdoe=verify-full}
 * would silently connect without verifying the server: that is why unknown names are errors, not
 * passed through. The few parameters that another option owns, or that would change what a
 * connection is, are refused with the option to use instead.
 */
final class PostgresUrlParameters {
  static final String ERROR = "POSTGRES_URL_PARAMETER";

  /** Parameters pgjdbc knows but the lake writer sets elsewhere, with where. */
  private static final Map<String, String> OWNED =
      Map.of(
          "user", "set " + LakeWriterOptions.POSTGRES_USER.key() + " instead",
          "sslpassword",
              "it is a secret and the URL is printed in messages: use an unencrypted PKCS-8 client"
                  + " key (sslkey) readable only by the writer's OS user",
          "currentSchema", "set " + LakeWriterOptions.POSTGRES_SCHEMA.key() + " instead",
          "replication",
              "the CDC source opens its own replication connection; every other connection must"
                  + " be a plain one",
          "PGHOST", "give the host in the URL itself (jdbc:postgresql://host:port/database)",
          "PGPORT", "give the port in the URL itself (jdbc:postgresql://host:port/database)",
          "PGDBNAME", "give the database in the URL itself (jdbc:postgresql://host:port/database)");

  private PostgresUrlParameters() {}

  /**
   * @throws ConfigException {@code POSTGRES_URL_PARAMETER} naming each refused parameter
   */
  static void check(Map<String, String> parameters) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> p : new java.util.TreeMap<>(parameters).entrySet()) {
      problems.addAll(problems(p.getKey(), p.getValue()));
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(
          ERROR + ": option " + LakeWriterOptions.POSTGRES_URL.key() + ": "
              + String.join("; ", problems));
    }
  }

  private static List<String> problems(String name, String value) {
    if (OWNED.containsKey(name)) {
      return List.of("parameter '" + name + "' is not accepted here: " + OWNED.get(name));
    }
    PGProperty property = PGProperty.forName(name);
    if (property == null) {
      return List.of(
          "parameter '" + name + "' is not a PostgreSQL JDBC driver parameter"
              + OptionSuggestions.closest(name, driverParameterNames())
                  .map(s -> " (did you mean '" + s + "'?)")
                  .orElse("")
              + "; pgjdbc would ignore it silently (a misspelt sslmode connects unverified)."
              + " Known parameters: https://jdbc.postgresql.org/documentation/use/");
    }
    String[] choices = property.getChoices();
    if (choices != null && choices.length > 0 && !Arrays.asList(choices).contains(value)) {
      return List.of(
          "parameter '" + name + "' is '" + value + "'; pgjdbc accepts one of "
              + Arrays.toString(choices));
    }
    return List.of();
  }

  private static TreeSet<String> driverParameterNames() {
    TreeSet<String> names = new TreeSet<>();
    for (PGProperty p : PGProperty.values()) {
      names.add(p.getName());
    }
    return names;
  }
}
