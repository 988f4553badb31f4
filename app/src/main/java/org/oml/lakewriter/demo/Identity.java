package org.oml.lakewriter.demo;

/**
 * Who acted: the identity that wrote or did it, and the principal it acted for.
 *
 * <p>Invariant: the principal is always a human of the same tenant ({@code name@tenant.example}),
 * whatever kind of identity acted for it, so that the writer's validation of principals holds for
 * every row and a ratifier can be told apart from a writer by principal as well as by identity.
 */
record Identity(String identity, String principal, String principalName) {

  static Identity human(String name, String tenant) {
    return new Identity("user:" + name, principalOf(name, tenant), name);
  }

  static Identity agent(String agent, String forHuman, String tenant) {
    return new Identity("agent:" + agent, principalOf(forHuman, tenant), forHuman);
  }

  static Identity service(String service, String forHuman, String tenant) {
    return new Identity("svc:" + service, principalOf(forHuman, tenant), forHuman);
  }

  private static String principalOf(String human, String tenant) {
    return human + "@" + tenant + ".example";
  }
}
