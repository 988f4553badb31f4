package org.oml.lakewriter.delta.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.validate.EventValidator;
import org.oml.lakewriter.validate.TinkCiphertext;

/**
 * Issue 16, hostile input at the sink: the router, the row factory and the batch planner over
 * batches that mix hostile rows with good neighbours. Every row lands exactly once (bronze or one
 * dead-letter table), every good neighbour in its own tenant's bronze (and silver, for a
 * promotion), and no table under a tenant's prefix holds another tenant's row. Nothing throws.
 */
class HostileBatchFuzzTest {
  private static final int MAX_BODY = 4_096;
  private static final EventValidator VALIDATOR = new EventValidator(MAX_BODY);
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-01T00:00:00Z"), ZoneOffset.UTC);

  private final EventRouter router = new EventRouter();
  private final RowFactory rows = new RowFactory(CLOCK);

  /** A row the router sees: validated upstream (the pipeline), or raw (the defensive re-check). */
  record Candidate(OutboxEvent event, boolean good) {}

  @Property(tries = 3000, shrinking = ShrinkingMode.BOUNDED)
  void everyEventRoutesToItsOwnTenantOrANamedDeadLetterAndItsRowsBuild(
      @ForAll("hostileEvents") OutboxEvent event, @ForAll boolean validatedUpstream) {
    OutboxEvent seen = validatedUpstream ? VALIDATOR.validate(event) : event;

    Route route = router.route(seen);

    if (route.isDeadLetter()) {
      Statistics.label("route").collect(route.deadLetter().errorClass().name());
      assertThat(route.deadLetter().errorClass()).isNotNull();
      assertThat(rows.deadLetter(seen, route.deadLetter()).seq()).isEqualTo(seen.seq());
      assertThat(route.tenantPrefix())
          .isIn(seen.tenantId(), TableId.INVALID_TENANT_PREFIX);
      return;
    }
    Statistics.label("route").collect(route.toSilver() ? "bronze+silver" : "bronze");
    assertThat(route.tenantPrefix()).isEqualTo(seen.tenantId());
    assertThat(TableId.isValidTenant(route.tenantPrefix())).isTrue();
    if (validatedUpstream) {
      rows.bronze(seen); // builds: every column the schema requires is set
    }
    if (route.toSilver()) {
      assertThat(TinkCiphertext.isWellFormed(seen.body())).isTrue();
      assertThat(EventValidator.sha256Hex(seen.body())).isEqualToIgnoringCase(seen.ciphertextDigest());
      assertThat(seen.ratifiedBy()).isNotEqualTo(seen.writerIdentity());
    }
  }

  @Property(tries = 1000, shrinking = ShrinkingMode.BOUNDED)
  void aHostileBatchLosesNoNeighbourAndPlacesEveryRowOnceUnderItsTenant(
      @ForAll("mixedBatches") List<Candidate> candidates) {
    List<OutboxEvent> events = new ArrayList<>();
    Map<Long, Candidate> bySeq = new HashMap<>();
    long seq = 100;
    for (Candidate c : candidates) {
      OutboxEvent e = VALIDATOR.validate(c.event().toBuilder().seq(++seq).build());
      events.add(e);
      bySeq.put(seq, new Candidate(e, c.good()));
    }
    Batch batch = new Batch(100, seq + 1, events);

    SortedMap<TableId, TableWrite> plan = new BatchPlanner(CLOCK).plan(batch);

    Map<Long, List<TableId>> placed = new HashMap<>();
    for (TableWrite write : plan.values()) {
      TableId table = write.table();
      for (TableRow row : write.appends()) {
        String tenant = (String) row.value(schemaOf(table).indexOf("tenant_id"));
        if (!table.prefix().equals(TableId.INVALID_TENANT_PREFIX)) {
          assertThat(tenant).as("row %s in %s", row.seq(), table).isEqualTo(table.prefix());
        } else {
          assertThat(TableId.isValidTenant(tenant)).isFalse();
        }
        // Bronze or a dead letter holds each row once; silver and gold are derived from bronze.
        if (table.kind() == TableKind.BRONZE_JOURNAL_EVENTS
            || table.kind() == TableKind.DEAD_LETTER) {
          placed.computeIfAbsent(row.seq(), s -> new ArrayList<>()).add(table);
        }
      }
    }
    assertThat(placed.keySet()).as("every row lands").isEqualTo(bySeq.keySet());
    for (Map.Entry<Long, List<TableId>> p : placed.entrySet()) {
      assertThat(p.getValue()).as("seq %s lands exactly once", p.getKey()).hasSize(1);
      Candidate c = bySeq.get(p.getKey());
      if (c.good()) {
        assertThat(p.getValue().get(0))
            .as("good neighbour %s", p.getKey())
            .isEqualTo(TableId.of(c.event().tenantId(), TableKind.BRONZE_JOURNAL_EVENTS));
      }
    }
    for (Candidate c : bySeq.values()) {
      if (c.good() && c.event().eventKind().orElseThrow() == EventKind.MATERIALIZE) {
        TableWrite silver = plan.get(TableId.of(c.event().tenantId(), TableKind.SILVER_MEMORIES));
        assertThat(silver.appends()).extracting(TableRow::seq).contains(c.event().seq());
      }
    }
    Statistics.label("hostile rows per batch")
        .collect(candidates.stream().filter(c -> !c.good()).count());
  }

  /** Regression example: the longest tenant id (63) is a tenant, one more is not. */
  @Example
  void tenantIdsAtTheLengthBoundRoute() {
    OutboxEvent at = good("a".repeat(63), EventKind.JOURNAL);
    OutboxEvent over = good("a".repeat(64), EventKind.JOURNAL);

    assertThat(router.route(VALIDATOR.validate(at)).tenantPrefix()).isEqualTo("a".repeat(63));
    assertThat(router.route(VALIDATOR.validate(over)).tenantPrefix())
        .isEqualTo(TableId.INVALID_TENANT_PREFIX);
  }

  /** The schema of a write's rows: a gold table's write carries the bronze rows that feed it. */
  private static LakeSchemas.TableSchema schemaOf(TableId table) {
    return switch (table.kind()) {
      case GOLD_LINEAGE, GOLD_WORKAREAS, GOLD_WORKAREA_MEMORIES -> LakeSchemas.BRONZE_JOURNAL_EVENTS;
      default -> LakeSchemas.of(table.kind());
    };
  }


  // ---- generators ---------------------------------------------------------------------------

  @Provide
  Arbitrary<List<Candidate>> mixedBatches() {
    Arbitrary<Candidate> goodOne =
        Combinators.combine(
                Arbitraries.of("acme", "globex", "a".repeat(63), "t-1", "0_0"),
                Arbitraries.of(EventKind.values()))
            .as((t, k) -> new Candidate(good(t, k), true));
    Arbitrary<Candidate> hostile = hostileEvents().map(e -> new Candidate(e, false));
    return Arbitraries.frequencyOf(Tuple.of(1, goodOne), Tuple.of(1, hostile))
        .list()
        .ofMinSize(1)
        .ofMaxSize(40);
  }

  @Provide
  Arbitrary<OutboxEvent> hostileEvents() {
    return Combinators.combine(
            Arbitraries.of(EventKind.values()), tenantIds(), mutation().list().ofMaxSize(3))
        .as(
            (kind, tenant, mutations) -> {
              OutboxEvent.Builder b = good(tenant, kind).toBuilder();
              for (java.util.function.UnaryOperator<OutboxEvent.Builder> m : mutations) {
                b = m.apply(b);
              }
              return b.build();
            });
  }

  /** A valid event of {@code kind}; a promotion has a sealed body and its digest. */
  static OutboxEvent good(String tenant, EventKind kind) {
    byte[] body = sealed(("body of " + tenant).getBytes(StandardCharsets.UTF_8));
    OutboxEvent.Builder b =
        OutboxEvent.builder()
            .seq(1)
            .txId(7L)
            .tenantId(tenant)
            .kind(kind.wireName())
            .artifactId("shared-artifact") // tenants share artifact ids
            .artifactVersion(1L)
            .workareaId("wa-1")
            .writerIdentity("alice")
            .principal("alice@" + tenant)
            .provenanceClass("human")
            .plaintextDigest("ab".repeat(32))
            .eventTimeMicros(1_700_000_000_000_000L);
    switch (kind) {
      case JOURNAL:
        return b.envelope("{\"sig\":\"s\"}").build();
      case MATERIALIZE:
        return b.ratifiedBy("bob")
            .body(body)
            .ciphertextDigest(EventValidator.sha256Hex(body))
            .dataKeyId("dek-1")
            .build();
      case WORKAREA_VALIDATED:
        return b.pathAtWrite("/teams/" + tenant).build();
      default:
        return b.build();
    }
  }

  static byte[] sealed(byte[] payload) {
    byte[] out = new byte[5 + payload.length + 28];
    out[0] = TinkCiphertext.TINK_START_BYTE;
    System.arraycopy(payload, 0, out, 5, payload.length);
    return out;
  }

  static Arbitrary<String> tenantIds() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of("acme", "globex", "t-1")),
        Tuple.of(2, Arbitraries.of(
            "acme", "../x", "..", ".", "a/b", "a\\b", "/abs", "%2e%2e", "acme\0", "ａｃｍｅ", "аcme",
            "acme\u200b", "ACME", "", " ", "acme.", "_invalid", "-acme", "a".repeat(63),
            "a".repeat(64), "a".repeat(65), "\ud800")),
        Tuple.of(1, Arbitraries.just((String) null)),
        Tuple.of(1, Arbitraries.strings().all().ofMaxLength(70)));
  }

  private static Arbitrary<java.util.function.UnaryOperator<OutboxEvent.Builder>> mutation() {
    Arbitrary<byte[]> bodies =
        Arbitraries.oneOf(
            Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
            Arbitraries.integers().between(MAX_BODY - 40, MAX_BODY + 2)
                .map(n -> sealed(new byte[n])),
            Arbitraries.strings().all().ofMaxLength(60)
                .map(s -> ("plain " + s).getBytes(StandardCharsets.UTF_8)));
    return Arbitraries.oneOf(
        bodies.map(body -> b -> b.body(body).ciphertextDigest(EventValidator.sha256Hex(body))),
        bodies.map(body -> b -> b.body(body)),
        Arbitraries.just(b -> b.body(null)),
        Arbitraries.of("", "ab", "AB".repeat(32), "zz".repeat(32)).map(d -> b -> b.ciphertextDigest(d)),
        Arbitraries.just(b -> b.ciphertextDigest(
            b.build().ciphertextDigest() == null ? null
                : b.build().ciphertextDigest().toUpperCase(Locale.ROOT))),
        Arbitraries.just(b -> b.ratifiedBy("alice")),
        Arbitraries.just(b -> b.ratifiedBy(null)),
        Arbitraries.of(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE).map(v -> b -> b.artifactVersion(v)),
        Arbitraries.just(b -> b.artifactVersion(null)),
        Arbitraries.just(b -> b.artifactId(null)),
        Arbitraries.just(b -> b.workareaId(null)),
        Arbitraries.just(b -> b.eventTimeMicros(null)),
        Arbitraries.just(b -> b.txId(null)),
        Arbitraries.of("bogus", "", "MATERIALIZE").map(k -> b -> b.kind(k)),
        Arbitraries.just(b -> b.kind((String) null)),
        Arbitraries.of("[]", "{", "x".repeat(100_000), "{\"a\":\"\0\"}").map(e -> b -> b.envelope(e)),
        Arbitraries.just(b -> b.envelope(null)),
        Arbitraries.strings().all().ofMaxLength(40).map(s -> b -> b.pathAtWrite(s).principal(s)));
  }
}
