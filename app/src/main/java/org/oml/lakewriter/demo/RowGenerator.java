package org.oml.lakewriter.demo;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Builds one thread's outbox rows from its random stream, and keeps the tenant's ledger in step
 * with them.
 *
 * <p>The mix, per row: about 10% retractions of live versions, about 20% promotions of written
 * ones, about 4% workarea validations and revocations (issue 15), and journal rows for the rest; when the ledger has nothing to retract or promote, the row
 * falls back to a kind that is possible, so short runs lean towards journal rows.
 *
 * <p>Invariant: every choice comes from the one random stream, drawn in a fixed order, so that the
 * same stream gives the same rows (only key material, ciphertexts and signatures are fresh). Do
 * not reorder, add or skip a draw: it would change every later row of a seed. A promotion or
 * retraction only picks what the {@link TenantLedger} offers.
 */
final class RowGenerator {
  private static final List<String> HUMANS =
      List.of("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi");
  private static final List<String> AGENTS = List.of("scribe", "summarizer", "researcher");
  private static final List<String> AREAS =
      List.of("notes", "meetings", "decisions", "research", "runbooks", "customers");

  private final int worker;
  private final Random random;
  private final long salt;
  private final JournalSigner.Envelopes envelopes;
  private final BodyEncryption encryption;
  private long artifactCounter;

  /**
   * @param worker the worker's index, or -1 for the long-open transaction (which shares worker 0's
   *     workarea prefix)
   * @param salt XORed into artifact ids, so that a run on a used outbox never reuses an id
   */
  RowGenerator(
      int worker,
      Random random,
      long salt,
      JournalSigner.Envelopes envelopes,
      BodyEncryption encryption) {
    this.worker = worker;
    this.random = random;
    this.salt = salt;
    this.envelopes = envelopes;
    this.encryption = encryption;
  }

  /** The next row of the tenant's traffic. */
  OutboxRow next(TenantLedger ledger) throws GeneralSecurityException {
    double r = random.nextDouble();
    if (r < 0.10 && ledger.liveCount() > 0) {
      return retract(ledger);
    }
    if (r < 0.30 && ledger.promotableCount() > 0) {
      return materialize(ledger, random.nextInt(ledger.promotableCount()));
    }
    if (r < 0.30 && ledger.liveCount() > 0) {
      return retract(ledger);
    }
    if (r < 0.34 && ledger.artifactCount() > 0) {
      return validation(ledger);
    }
    return journal(ledger);
  }

  /**
   * A validation of the workarea of one of the tenant's artifacts (so that it has memories), or,
   * for one validated now, a revocation or a re-validation, half and half (issue 15).
   */
  private OutboxRow validation(TenantLedger ledger) {
    String workarea = ledger.artifact(random.nextInt(ledger.artifactCount())).workarea();
    boolean revoke = ledger.isValidated(workarea) && random.nextBoolean();
    Identity reviewer = Identity.human(pick(HUMANS), ledger.tenant());
    ledger.judge(workarea, !revoke);
    return OutboxRow.workareaValidation(
        ledger.tenant(), workarea, revoke ? null : "/workareas/" + workarea, reviewer);
  }

  private OutboxRow journal(TenantLedger ledger) {
    double j = random.nextDouble();
    if (ledger.artifactCount() == 0 || j < 0.35) {
      return journalWrite(ledger, null);
    }
    TenantLedger.Artifact a = ledger.artifact(random.nextInt(ledger.artifactCount()));
    if (j < 0.65) {
      return journalWrite(ledger, a);
    }
    // A read or a comment: attributed to someone, about the latest version, no new content.
    String op = j < 0.9 ? "read" : "comment";
    Identity actor = Identity.human(pick(HUMANS), ledger.tenant());
    return journalRow(ledger.tenant(), op, a, a.latestVersion(), actor, a.latestDigest());
  }

  /** A write of a new artifact ({@code existing == null}) or of a new version of one. */
  OutboxRow journalWrite(TenantLedger ledger, TenantLedger.Artifact existing) {
    TenantLedger.Artifact a = existing != null ? existing : newArtifact(ledger);
    String tenant = ledger.tenant();
    Identity writer = writerFor(a.provenance(), tenant);
    long textSeed = random.nextLong();
    long version = a.latestVersion() + 1;
    String text = MemoryText.of(tenant, a, version, writer, textSeed);
    String digest = EventValidator.sha256Hex(text.getBytes(StandardCharsets.UTF_8));
    ledger.recordWrite(new TenantLedger.Written(a, version, writer, textSeed, digest));
    return journalRow(tenant, "write", a, version, writer, digest);
  }

  private TenantLedger.Artifact newArtifact(TenantLedger ledger) {
    String provenance = pickProvenance();
    UUID id = new UUID(random.nextLong() ^ salt, random.nextLong());
    TenantLedger.Artifact a =
        new TenantLedger.Artifact(
            "mem-" + id,
            newWorkarea(null),
            "/" + pick(AREAS) + "/" + pick(MemoryText.TOPICS) + "-" + (++artifactCounter) + ".md",
            provenance);
    ledger.addArtifact(a);
    return a;
  }

  private OutboxRow journalRow(
      String tenant,
      String op,
      TenantLedger.Artifact a,
      long version,
      Identity actor,
      String plaintextDigest) {
    String envelope =
        envelopes.envelope(tenant, op, a.id(), version, actor.identity(), plaintextDigest);
    return OutboxRow.journal(tenant, a, version, actor, plaintextDigest, envelope);
  }

  /** Promotes the written version at {@code index} of the ledger's promotable ones. */
  OutboxRow materialize(TenantLedger ledger, int index) throws GeneralSecurityException {
    TenantLedger.Written w = ledger.promote(index);
    Identity ratifier = ratifierOf(w.writer(), ledger.tenant());
    BodyEncryption.EncryptedBody sealed = seal(ledger.tenant(), w);
    ledger.recordDataKey(w, sealed.dataKeyId());
    return OutboxRow.materialize(ledger.tenant(), w, ratifier, sealed);
  }

  /** Someone other than the writer, by identity and by principal: no one ratifies their own. */
  private Identity ratifierOf(Identity writer, String tenant) {
    Identity ratifier;
    do {
      ratifier = Identity.human(pick(HUMANS), tenant);
    } while (ratifier.identity().equals(writer.identity())
        || ratifier.principal().equals(writer.principal()));
    return ratifier;
  }

  /** Encrypts the version's text, regenerated from the same inputs as at its write. */
  private BodyEncryption.EncryptedBody seal(String tenant, TenantLedger.Written w)
      throws GeneralSecurityException {
    TenantLedger.Artifact a = w.artifact();
    byte[] plaintext =
        MemoryText.of(tenant, a, w.version(), w.writer(), w.textSeed())
            .getBytes(StandardCharsets.UTF_8);
    BodyEncryption.EncryptedBody sealed = encryption.encrypt(a.id(), plaintext);
    if (!sealed.plaintextDigest().equals(w.plaintextDigest())) {
      throw new IllegalStateException("memory text of " + a.id() + " is not stable");
    }
    return sealed;
  }

  private OutboxRow retract(TenantLedger ledger) {
    int index = random.nextInt(ledger.liveCount());
    EventKind kind = retractionKind(random.nextDouble());
    if (kind == EventKind.SIMULATION_END) {
      // A simulation's end retracts what the simulation wrote.
      List<Integer> simulated = ledger.liveSimulations();
      if (simulated.isEmpty()) {
        kind = EventKind.DEMOTE;
      } else {
        index = simulated.get(random.nextInt(simulated.size()));
      }
    }
    TenantLedger.Written w = ledger.live(index);
    TenantLedger.Artifact a = w.artifact();
    Identity actor =
        kind == EventKind.SIMULATION_END
            ? Identity.agent("sim-runner", w.writer().principalName(), ledger.tenant())
            : Identity.human(pick(HUMANS), ledger.tenant());
    String dataKey = ledger.dataKeyOf(w);
    if (kind == EventKind.REASSIGN) {
      ledger.reassign(a, reassignTarget(ledger, a.workarea()));
    } else {
      ledger.finish(index);
    }
    OutboxRow row = OutboxRow.retraction(ledger.tenant(), kind, a, w.version(), actor);
    // An erase destroys the version's data key in its own transaction (docs/erasure.md).
    return kind == EventKind.ERASE && dataKey != null ? row.withErasedKey(dataKey) : row;
  }

  private static EventKind retractionKind(double k) {
    return k < 0.35
        ? EventKind.DEMOTE
        : k < 0.55 ? EventKind.ERASE : k < 0.85 ? EventKind.REASSIGN : EventKind.SIMULATION_END;
  }

  /**
   * Where a reassign moves an artifact: half the time (once there are some) a workarea with a
   * validation event, validated or revoked, so that memories move between validated and
   * unvalidated workareas; else a new one.
   */
  private String reassignTarget(TenantLedger ledger, String old) {
    List<String> judged = ledger.judgedWorkareas();
    if (!judged.isEmpty() && random.nextBoolean()) {
      String target = judged.get(random.nextInt(judged.size()));
      if (!target.equals(old)) {
        return target;
      }
    }
    return newWorkarea(old);
  }

  /** A workarea other than {@code old}: a reassign must move the artifact. */
  private String newWorkarea(String old) {
    String wa;
    do {
      wa = String.format("wa-%02d-%06x", Math.max(worker, 0), random.nextInt(1 << 24));
    } while (wa.equals(old));
    return wa;
  }

  private String pickProvenance() {
    double p = random.nextDouble();
    return p < 0.45 ? "human" : p < 0.80 ? "agent" : p < 0.90 ? "import" : "simulation";
  }

  /** Who writes an artifact follows from its provenance; the principal is always a human. */
  private Identity writerFor(String provenance, String tenant) {
    String human = pick(HUMANS);
    switch (provenance) {
      case "human":
        return Identity.human(human, tenant);
      case "agent":
        return Identity.agent(pick(AGENTS), human, tenant);
      case "import":
        return Identity.service("importer", human, tenant);
      default:
        return Identity.agent("sim-runner", human, tenant);
    }
  }

  private <T> T pick(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }
}
