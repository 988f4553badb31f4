package org.oml.lakewriter.demo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One worker's ledger of one tenant's artifacts: the versions written, which of them may be
 * promoted, and which are live and may be retracted.
 *
 * <p>Invariant: a version becomes promotable only once its journal write is inserted, and live
 * (retractable) only once its promotion is inserted, each either earlier in the open transaction or
 * in a committed one. A promotion or retraction therefore always gets a higher seq than the row it
 * refers to. A final retraction takes the version out of the ledger for good, so nothing retracts
 * it again; a reassign keeps it live.
 *
 * <p>Every change is logged until {@link #commit()}, so that {@link #rollback()} puts the ledger
 * (and its artifacts) back exactly as the last commit left it: a rolled-back transaction's rows
 * never happened, and nothing may refer to them. A transaction holds rows of one tenant only, so
 * one log per ledger covers it.
 *
 * <p>Not thread-safe, and it need not be: every artifact belongs to the one worker that created it.
 * Lists keep insertion order, so the same random stream makes the same choices on every run.
 */
final class TenantLedger {

  /** An artifact of one tenant; the ledger alone changes it, so that rollback can undo it. */
  static final class Artifact {
    private final String id;
    private final String path;
    private final String provenance;
    private String workarea;
    private long latestVersion;
    private String latestDigest;

    Artifact(String id, String workarea, String path, String provenance) {
      this.id = id;
      this.workarea = workarea;
      this.path = path;
      this.provenance = provenance;
    }

    String id() {
      return id;
    }

    String path() {
      return path;
    }

    String provenance() {
      return provenance;
    }

    String workarea() {
      return workarea;
    }

    /** 0 before the first write. */
    long latestVersion() {
      return latestVersion;
    }

    /** The plaintext digest of the latest version, or null before the first write. */
    String latestDigest() {
      return latestDigest;
    }
  }

  /** A written version, with what it takes to regenerate its plaintext for a promotion. */
  record Written(
      Artifact artifact, long version, Identity writer, long textSeed, String plaintextDigest) {}

  private final String tenant;
  private final List<Artifact> artifacts = new ArrayList<>();
  private final List<Written> promotable = new ArrayList<>();
  private final List<Written> live = new ArrayList<>();
  /** The data-key id each live version's promotion sealed its body under: what an erase destroys. */
  private final Map<Written, String> dataKeys = new IdentityHashMap<>();
  private final Deque<Runnable> undo = new ArrayDeque<>();
  /**
   * Workareas with a validation event, in order of their first one, and whether they are
   * validated now (false: invalidated): what a reassign may move an artifact into (issue 15).
   */
  private final List<String> judged = new ArrayList<>();
  private final Map<String, Boolean> validated = new java.util.HashMap<>();

  TenantLedger(String tenant) {
    this.tenant = tenant;
  }

  String tenant() {
    return tenant;
  }

  int artifactCount() {
    return artifacts.size();
  }

  Artifact artifact(int index) {
    return artifacts.get(index);
  }

  int promotableCount() {
    return promotable.size();
  }

  int liveCount() {
    return live.size();
  }

  Written live(int index) {
    return live.get(index);
  }

  /** Indexes of the live versions a simulation wrote: what a simulation's end may retract. */
  List<Integer> liveSimulations() {
    List<Integer> simulated = new ArrayList<>();
    for (int i = 0; i < live.size(); i++) {
      if ("simulation".equals(live.get(i).artifact().provenance)) {
        simulated.add(i);
      }
    }
    return simulated;
  }

  void addArtifact(Artifact a) {
    artifacts.add(a);
    undo.push(() -> artifacts.remove(artifacts.size() - 1));
  }

  /** Records an inserted journal write: its version is now the latest, and promotable. */
  void recordWrite(Written w) {
    Artifact a = w.artifact();
    long oldVersion = a.latestVersion;
    String oldDigest = a.latestDigest;
    a.latestVersion = w.version();
    a.latestDigest = w.plaintextDigest();
    undo.push(
        () -> {
          a.latestVersion = oldVersion;
          a.latestDigest = oldDigest;
        });
    promotable.add(w);
    undo.push(() -> promotable.remove(promotable.size() - 1));
  }

  /** Moves the promotable version at {@code index} to the live ones and returns it. */
  Written promote(int index) {
    Written w = promotable.remove(index);
    undo.push(() -> promotable.add(index, w));
    live.add(w);
    undo.push(() -> live.remove(live.size() - 1));
    return w;
  }

  /** Records the data-key id under which the live version {@code w}'s promotion sealed its body. */
  void recordDataKey(Written w, String dataKeyId) {
    String old = dataKeys.put(w, dataKeyId);
    undo.push(() -> {
      if (old == null) {
        dataKeys.remove(w);
      } else {
        dataKeys.put(w, old);
      }
    });
  }

  /** The data-key id of a live version's promotion, or null if none was recorded. */
  String dataKeyOf(Written w) {
    return dataKeys.get(w);
  }

  /** Moves an artifact to another workarea; its live versions stay live. */
  void reassign(Artifact a, String workarea) {
    String old = a.workarea;
    a.workarea = workarea;
    undo.push(() -> a.workarea = old);
  }

  /** Retracts the live version at {@code index} for good (demote, erase, simulation end). */
  void finish(int index) {
    Written w = live.remove(index);
    undo.push(() -> live.add(index, w));
    String key = dataKeys.remove(w);
    if (key != null) {
      undo.push(() -> dataKeys.put(w, key));
    }
  }

  /** Whether the workarea's last validation event validated it (false if none or revoked). */
  boolean isValidated(String workarea) {
    return validated.getOrDefault(workarea, false);
  }

  /** Workareas with a validation event, validated or revoked, in order of their first one. */
  List<String> judgedWorkareas() {
    return judged;
  }

  /** Records an inserted validation ({@code valid}) or revocation of the workarea. */
  void judge(String workarea, boolean valid) {
    Boolean old = validated.put(workarea, valid);
    if (old == null) {
      judged.add(workarea);
      undo.push(
          () -> {
            validated.remove(workarea);
            judged.remove(judged.size() - 1);
          });
    } else {
      undo.push(() -> validated.put(workarea, old));
    }
  }

  /** The open transaction committed: its changes stay. */
  void commit() {
    undo.clear();
  }

  /** The open transaction rolled back: undoes its changes, newest first. */
  void rollback() {
    while (!undo.isEmpty()) {
      undo.pop().run();
    }
  }
}
