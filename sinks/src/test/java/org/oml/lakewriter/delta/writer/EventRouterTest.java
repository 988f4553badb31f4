package org.oml.lakewriter.delta.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

class EventRouterTest {
  private final EventRouter router = new EventRouter();

  @Test
  void validMaterializeGoesToBronzeAndSilver() {
    Route route = router.route(Events.materialize(4, "acme", "ciphertext"));
    assertThat(route.isDeadLetter()).isFalse();
    assertThat(route.toSilver()).isTrue();
    assertThat(route.tenantPrefix()).isEqualTo("acme");
  }

  @Test
  void journalAndRetractionsGoToBronzeOnly() {
    assertThat(router.route(Events.journal(1, "acme"))).isEqualTo(Route.bronze("acme"));
    for (EventKind kind :
        new EventKind[] {
          EventKind.DEMOTE, EventKind.ERASE, EventKind.SIMULATION_END, EventKind.REASSIGN
        }) {
      assertThat(router.route(Events.retraction(2, "acme", kind))).isEqualTo(Route.bronze("acme"));
    }
  }

  @Test
  void retractionThatCannotMergeOnItsKeyIsADeadLetter() {
    OutboxEvent keyless =
        Events.retraction(2, "acme", EventKind.DEMOTE).toBuilder().artifactVersion(null).build();
    assertThat(router.route(keyless).deadLetter().errorClass()).isEqualTo(ErrorClass.MISSING_FIELD);
    OutboxEvent nowhere =
        Events.retraction(3, "acme", EventKind.REASSIGN).toBuilder().workareaId(null).build();
    assertThat(router.route(nowhere).deadLetter().message()).contains("workarea_id");
  }

  @Test
  void validationEventsGoToBronzeOnly() {
    OutboxEvent validated =
        Events.base(5, "acme", EventKind.WORKAREA_VALIDATED).artifactId(null).build();
    OutboxEvent invalidated =
        Events.base(6, "acme", EventKind.WORKAREA_INVALIDATED).pathAtWrite(null).build();
    assertThat(router.route(validated)).isEqualTo(Route.bronze("acme"));
    assertThat(router.route(invalidated)).isEqualTo(Route.bronze("acme"));
  }

  @Test
  void malformedValidationEventIsAMissingFieldDeadLetter() {
    OutboxEvent.Builder validated = Events.base(5, "acme", EventKind.WORKAREA_VALIDATED);
    OutboxEvent.Builder invalidated = Events.base(6, "acme", EventKind.WORKAREA_INVALIDATED);
    assertMissing(validated.workareaId(null).build(), "workarea_validated row lacks workarea_id");
    assertMissing(
        Events.base(5, "acme", EventKind.WORKAREA_VALIDATED).writerIdentity(" ").build(),
        "workarea_validated row lacks writer_identity");
    assertMissing(
        Events.base(5, "acme", EventKind.WORKAREA_VALIDATED).pathAtWrite(null).build(),
        "workarea_validated row lacks path_at_write");
    assertMissing(
        Events.base(5, "acme", EventKind.WORKAREA_VALIDATED).eventTimeMicros(null).build(),
        "workarea_validated row lacks event_time");
    assertMissing(
        invalidated.workareaId("").build(), "workarea_invalidated row lacks workarea_id");
  }

  private void assertMissing(OutboxEvent event, String message) {
    Route route = router.route(event);
    assertThat(route.isDeadLetter()).as(message).isTrue();
    assertThat(route.deadLetter().errorClass()).isEqualTo(ErrorClass.MISSING_FIELD);
    assertThat(route.deadLetter().message()).isEqualTo(message);
    assertThat(route.deadLetterTable()).isEqualTo(TableId.of("acme", TableKind.DEAD_LETTER));
  }

  @Test
  void digestMismatchIsADeadLetter() {
    OutboxEvent event =
        Events.materialize(4, "acme", "real").toBuilder()
            .body("tampered".getBytes(StandardCharsets.UTF_8))
            .build();
    Route route = router.route(event);
    assertThat(route.deadLetter().errorClass()).isEqualTo(ErrorClass.DIGEST_MISMATCH);
    assertThat(route.deadLetterTable()).isEqualTo(TableId.of("acme", TableKind.DEAD_LETTER));
  }

  @Test
  void upperCaseHexIsTheSameDigest() {
    // The validator compares hex digests ignoring case; the router must agree, or the lake would
    // dead-letter a row that the dead-letter journal never hears of.
    OutboxEvent valid = Events.materialize(4, "acme", "x");
    OutboxEvent upper =
        valid.toBuilder().ciphertextDigest(valid.ciphertextDigest().toUpperCase()).build();
    Route route = router.route(upper);
    assertThat(route.isDeadLetter()).isFalse();
    assertThat(route.toSilver()).isTrue();
  }

  @Test
  void selfRatifiedOrUnratifiedBodyIsADeadLetter() {
    OutboxEvent valid = Events.materialize(4, "acme", "x");
    OutboxEvent self = valid.toBuilder().ratifiedBy(valid.writerIdentity()).build();
    OutboxEvent none = valid.toBuilder().ratifiedBy(null).build();
    assertThat(router.route(self).deadLetter().errorClass()).isEqualTo(ErrorClass.UNRATIFIED_BODY);
    assertThat(router.route(none).deadLetter().errorClass()).isEqualTo(ErrorClass.UNRATIFIED_BODY);
  }

  @Test
  void rowWithAnErrorKeepsItsError() {
    RowError error = new RowError(ErrorClass.UNPARSEABLE_ENVELOPE, "not json");
    Route route = router.route(Events.journal(1, "acme").withError(error));
    assertThat(route.deadLetter()).isEqualTo(error);
    assertThat(route.tenantPrefix()).isEqualTo("acme");
  }

  @Test
  void invalidTenantGoesUnderInvalidPrefix() {
    for (String tenant :
        new String[] {null, "", "../etc", "ACME", "_invalid", "a/b", "x".repeat(64)}) {
      Route route = router.route(Events.journal(1, "acme").toBuilder().tenantId(tenant).build());
      assertThat(route.deadLetterTable()).isEqualTo(TableId.invalidTenantDeadLetter());
      assertThat(route.deadLetter().errorClass()).isEqualTo(ErrorClass.INVALID_TENANT);
    }
  }

  @Test
  void unknownKindIsADeadLetter() {
    Route route = router.route(Events.journal(1, "acme").toBuilder().kind("upsert").build());
    assertThat(route.deadLetter().errorClass()).isEqualTo(ErrorClass.UNKNOWN_KIND);
  }
}
