package org.oml.lakewriter.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.testing.Events;

class EventModelTest {
  @Test
  void eventsAreEqualByBodyContentNotIdentity() {
    OutboxEvent a = Events.materialize(1, Events.allByteValues()).build();
    OutboxEvent b = Events.materialize(1, Events.allByteValues()).build();
    byte[] other = Events.allByteValues();
    other[255] = 0;

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(a.toBuilder().body(other).build());
    assertThat(a).isNotEqualTo(a.toBuilder().envelope("{}").build());
    assertThat(a.toBuilder().build()).isEqualTo(a);
  }

  @Test
  void toStringNeverPrintsTheBodyOrTheDigests() {
    byte[] body = "SECRET-CIPHERTEXT".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    OutboxEvent event = Events.materialize(1, body).build();

    String text = event.toString();

    assertThat(text).doesNotContain("SECRET").doesNotContain(event.ciphertextDigest());
    assertThat(text).contains("seq=1").contains(body.length + " bytes");
  }

  @Test
  void theSizeEstimateCountsTextAndBody() {
    OutboxEvent bare = OutboxEvent.builder().seq(1).build();
    OutboxEvent withText = bare.toBuilder().tenantId("acme").envelope("{}").build();
    OutboxEvent withBody = bare.toBuilder().body(new byte[100]).build();

    assertThat(withText.estimatedBytes()).isEqualTo(bare.estimatedBytes() + 6);
    assertThat(withBody.estimatedBytes()).isEqualTo(bare.estimatedBytes() + 100);
  }

  @Test
  void kindsAreKnownByTheirWireName() {
    for (EventKind kind : EventKind.values()) {
      assertThat(EventKind.fromWireName(kind.wireName())).contains(kind);
    }
    assertThat(EventKind.fromWireName("MATERIALIZE")).isEmpty();
    assertThat(EventKind.fromWireName(null)).isEmpty();
    assertThat(EventKind.SIMULATION_END.wireName()).isEqualTo("simulation_end");
    assertThat(EventKind.REASSIGN.isRetraction()).isTrue();
    assertThat(EventKind.MATERIALIZE.isRetraction()).isFalse();
  }

  @Test
  void aBatchHoldsItsRowsInOrderInsideItsRange() {
    assertThatThrownBy(() -> new Batch(5, 5, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Batch(5, 9, List.of(row(5))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Batch(5, 9, List.of(row(10))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Batch(5, 9, List.of(row(7), row(6))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Batch(5, 9, List.of(row(7), row(7))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new Batch(5, 9, List.of(row(6), row(9))).events()).hasSize(2);
  }

  @Test
  void aBatchKeepsItsOwnCopyOfTheRows() {
    List<OutboxEvent> rows = new ArrayList<>(List.of(row(6)));
    Batch batch = new Batch(5, 9, rows);

    rows.add(row(8));

    assertThat(batch.events()).hasSize(1);
    assertThatThrownBy(() -> batch.events().add(row(7)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void onlyTransientErrorsAreRetried() {
    for (ErrorClass errorClass : ErrorClass.values()) {
      boolean transientClass =
          errorClass == ErrorClass.DEPENDENCY_UNAVAILABLE
              || errorClass == ErrorClass.UNKNOWN_DATA_KEY;
      assertThat(errorClass.isPermanent()).as("%s", errorClass).isEqualTo(!transientClass);
    }
  }

  private static OutboxEvent row(long seq) {
    return Events.journal(seq).build();
  }
}
