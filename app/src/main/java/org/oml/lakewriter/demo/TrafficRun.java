package org.oml.lakewriter.demo;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Random;

/**
 * What every thread of one run shares.
 *
 * <p>Invariant: a thread's random stream depends only on the seed and the thread's index (-1 for
 * the long-open transaction), and artifact ids only on that stream and {@code salt}; so on a fresh
 * outbox (salt 0) the same seed gives the same traffic, and on a used one the ids differ from any
 * earlier run's, so that no {@code (artifact_id, version)} is promoted twice.
 *
 * @param salt 0 on a fresh outbox; otherwise derived from how far the outbox sequence has gone
 * @param signer the run's journal key, shared by all threads
 */
record TrafficRun(
    DemoTraffic.ConnectionSource connections,
    BodyEncryption encryption,
    DemoTraffic.Options options,
    TenantMix tenants,
    long salt,
    JournalSigner signer) {

  /** Reads the salt from the outbox sequence (on a connection of its own) and makes a new key. */
  static TrafficRun begin(
      DemoTraffic.ConnectionSource connections,
      BodyEncryption encryption,
      DemoTraffic.Options options,
      TenantMix tenants)
      throws SQLException {
    long salt = artifactIdSalt(connections);
    return new TrafficRun(connections, encryption, options, tenants, salt, JournalSigner.create());
  }

  private static long artifactIdSalt(DemoTraffic.ConnectionSource connections)
      throws SQLException {
    try (Connection c = connections.open()) {
      long used = OutboxInserter.sequenceUsed(c);
      return used == 0 ? 0 : new Random(used).nextLong() | 1;
    }
  }

  /** The random stream of thread {@code index}; -1 is the long-open transaction. */
  Random randomFor(int index) {
    return new Random(options.seed() * 0x9E3779B97F4A7C15L + index);
  }

  /** A generator for thread {@code index} that draws from {@code random}. */
  RowGenerator generator(int index, Random random) {
    return new RowGenerator(index, random, salt, signer.envelopes(), encryption);
  }
}
