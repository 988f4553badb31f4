package org.oml.lakewriter.demo;

import java.util.List;
import java.util.Random;

/**
 * The plaintext of a memory artifact: about 1 KiB of markdown.
 *
 * <p>Invariant: the text is a pure function of its inputs. A journal write records only the
 * plaintext's digest, and the promotion that comes later regenerates the text from the same
 * inputs to encrypt it; the two digests must agree, so nothing here may depend on state or time.
 */
final class MemoryText {
  /** Also the stems of artifact paths, so that a path and its text tell the same story. */
  static final List<String> TOPICS =
      List.of(
          "quarterly-planning",
          "billing-export",
          "incident-review",
          "vendor-evaluation",
          "onboarding-checklist",
          "pricing-experiment",
          "data-retention",
          "roadmap-sync",
          "support-escalation",
          "latency-budget");

  private static final List<String> SUBJECTS =
      List.of(
          "The team",
          "Finance",
          "The on-call engineer",
          "Legal",
          "The customer",
          "Our largest account",
          "The platform group",
          "Product");
  private static final List<String> VERBS =
      List.of(
          "agreed to revisit",
          "asked for a written summary of",
          "raised concerns about",
          "signed off on",
          "wants a second opinion on",
          "will own the follow-up on",
          "measured again",
          "postponed");
  private static final List<String> OBJECTS =
      List.of(
          "the retention window for audit logs",
          "the migration of nightly exports",
          "the p99 latency of the ingestion path",
          "the renewal terms",
          "the access review for contractors",
          "the rollout plan for the new schema",
          "the cost of the staging cluster",
          "the escalation runbook");
  private static final List<String> QUALIFIERS =
      List.of(
          "before the end of the quarter",
          "once the numbers from last week are in",
          "pending a decision from the steering group",
          "with a rollback plan attached",
          "after the next release",
          "as discussed in the last sync",
          "if the budget allows",
          "without further delay");

  private MemoryText() {}

  /** About 1 KiB of markdown, the same for the same inputs. */
  static String of(
      String tenant, TenantLedger.Artifact a, long version, Identity writer, long textSeed) {
    Random r = new Random(textSeed);
    String topic = TOPICS.get(r.nextInt(TOPICS.size()));
    StringBuilder sb = new StringBuilder(1200);
    sb.append("# ")
        .append(Character.toUpperCase(topic.charAt(0)))
        .append(topic.substring(1).replace('-', ' '))
        .append(" (")
        .append(tenant)
        .append(")\n\n");
    sb.append("Artifact ")
        .append(a.id())
        .append(", version ")
        .append(version)
        .append(", written by ")
        .append(writer.identity())
        .append(" for ")
        .append(writer.principal())
        .append(" at ")
        .append(a.path())
        .append(".\n\n");
    appendSentences(sb, r, 900 + r.nextInt(250));
    return sb.append('\n').toString();
  }

  /** Sentences, with a paragraph break now and then, until the text reaches {@code target}. */
  private static void appendSentences(StringBuilder sb, Random r, int target) {
    while (sb.length() < target) {
      sb.append(SUBJECTS.get(r.nextInt(SUBJECTS.size())))
          .append(' ')
          .append(VERBS.get(r.nextInt(VERBS.size())))
          .append(' ')
          .append(OBJECTS.get(r.nextInt(OBJECTS.size())))
          .append(' ')
          .append(QUALIFIERS.get(r.nextInt(QUALIFIERS.size())))
          .append(". ");
      if (r.nextInt(4) == 0) {
        sb.append("\n\n");
      }
    }
  }
}
