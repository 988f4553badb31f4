package org.oml.lakewriter.it.gold;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.validate.EventValidator;

/**
 * The producer of {@code GoldWorkloadITCase}: transactions of 1-6 rows of one tenant, from one seeded
 * random stream, mixing every event gold reads in varied orders within and across transactions:
 * journal writes (new keys, later versions, repeats, rows without a key), promotions and
 * re-promotions, every retraction kind of promoted, unpromoted and unknown keys, workarea
 * validations, revocations and re-validations over a small pool of workareas, reassigns between
 * them (validated or not), and malformed validations (no path, no identity) that must become dead
 * letters. Every malformed seq is recorded, so that the test knows its dead letters on its own.
 */
final class GoldWorkload {
  static final List<String> TENANTS = List.of("acme", "globex");
  private static final String[] RETRACTIONS = {"demote", "erase", "simulation_end", "reassign"};

  private final Random random;
  private final List<List<String>> keys = new ArrayList<>(); // per tenant: "artifact@version"
  final Set<Long> malformed = ConcurrentHashMap.newKeySet();
  private int next;

  GoldWorkload(long seed) {
    this.random = new Random(seed);
    TENANTS.forEach(t -> keys.add(new ArrayList<>()));
  }

  /** Inserts one transaction of 1-6 rows of one tenant and commits it; returns the rows. */
  int transaction(Connection c) throws SQLException {
    int tenantIndex = random.nextInt(TENANTS.size());
    String tenant = TENANTS.get(tenantIndex);
    List<String> known = keys.get(tenantIndex);
    int rows = 1 + random.nextInt(6);
    for (int i = 0; i < rows; i++) {
      double r = random.nextDouble();
      if (r < 0.22 || known.isEmpty()) {
        String key = known.isEmpty() || random.nextDouble() < 0.6
            ? "a" + (next++) + "@" + (1 + random.nextInt(2))
            : pick(known);
        if (!known.contains(key)) {
          known.add(key);
        }
        insert(c, tenant, "journal", key, workarea(), path(), "alice", null);
      } else if (r < 0.36) {
        insert(c, tenant, "materialize", pick(known), workarea(), path(), "alice", null);
      } else if (r < 0.44) {
        insert(c, tenant, "workarea_validated", null, workarea(), "/wa/" + random.nextInt(3),
            "reviewer", null);
      } else if (r < 0.49) {
        insert(c, tenant, "workarea_invalidated", null, workarea(), null, "revoker", null);
      } else if (r < 0.51) {
        // Malformed: a validation without its path, or a revocation without its identity.
        boolean noPath = random.nextBoolean();
        malformed.add(insert(c, tenant, noPath ? "workarea_validated" : "workarea_invalidated",
            null, workarea(), null, noPath ? "reviewer" : null, null));
      } else if (r < 0.54) {
        insert(c, tenant, "journal", null, null, null, "alice", null); // no key: no lineage
      } else {
        String kind = RETRACTIONS[random.nextInt(RETRACTIONS.length)];
        String key = random.nextDouble() < 0.08 ? "ghost" + random.nextInt(5) + "@1" : pick(known);
        boolean withPath = kind.equals("reassign") && random.nextBoolean();
        insert(c, tenant, kind, key, workarea(), withPath ? path() : null, "carol", null);
      }
    }
    c.commit();
    return rows;
  }

  /**
   * A last transaction per tenant: wa-4 revoked, wa-0 (re-)validated, so that the end state holds
   * both whatever the random stream did.
   */
  void finish(Connection c) throws SQLException {
    for (String tenant : TENANTS) {
      insert(c, tenant, "workarea_invalidated", null, "wa-4", null, "revoker", null);
      insert(c, tenant, "workarea_validated", null, "wa-0", "/wa/final", "reviewer", null);
      c.commit();
    }
  }

  private String workarea() {
    return "wa-" + random.nextInt(5);
  }

  private String path() {
    return "/p/" + random.nextInt(4);
  }

  private String pick(List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static long insert(Connection c, String tenant, String kind, String key,
      String workarea, String path, String identity, Object unused) throws SQLException {
    String artifact = key == null ? null : key.substring(0, key.indexOf('@'));
    Long version = key == null ? null : Long.parseLong(key.substring(key.indexOf('@') + 1));
    boolean promote = kind.equals("materialize");
    byte[] body =
        promote ? OutboxWriter.sealed(("cipher " + key).getBytes(StandardCharsets.UTF_8)) : null;
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
            + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
            + " plaintext_digest, ciphertext_digest, body, data_key_id, envelope)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, kind);
      ps.setString(3, artifact);
      if (version == null) {
        ps.setNull(4, Types.BIGINT);
      } else {
        ps.setLong(4, version);
      }
      ps.setString(5, workarea);
      ps.setString(6, path);
      ps.setString(7, identity);
      ps.setString(8, identity == null ? null : identity + "@" + tenant);
      ps.setString(9, promote ? "bob" : null);
      ps.setString(10, promote ? "human" : null);
      ps.setString(11, key == null ? null
          : EventValidator.sha256Hex(("plain " + key).getBytes(StandardCharsets.UTF_8)));
      ps.setString(12, promote ? EventValidator.sha256Hex(body) : null);
      ps.setBytes(13, body);
      ps.setString(14, promote ? "dek-" + key : null);
      ps.setString(15, kind.equals("journal") ? "{\"sig\":\"ed25519:abc\"}" : null);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
