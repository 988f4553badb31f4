package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.testing.Events;

class RowCacheTest {
  private static final OutboxEvent SMALL = Events.journal(1).build();
  private static final OutboxEvent LARGE =
      Events.journal(2).envelope("x".repeat(10_000)).build();

  @Test
  void holdsRowsUpToItsBudgetAndAnEmittedRowFreesItsBytes() {
    long small = RowCache.sizeOf(SMALL);
    assertThat(small).isEqualTo(SMALL.estimatedBytes() + RowCache.ROW_OVERHEAD);
    RowCache cache = new RowCache(small + RowCache.sizeOf(LARGE) - 1);

    cache.offer(SMALL, true);
    assertThat(cache.offer(LARGE, true)).isFalse(); // one byte short
    assertThat(cache.get(1)).isSameAs(SMALL);
    assertThat(cache.get(2)).isNull();
    assertThat(cache.bytes()).isEqualTo(small);

    cache.remove(1);
    cache.remove(1); // a second remove frees nothing twice
    assertThat(cache.bytes()).isZero();
    cache.offer(LARGE, true);
    assertThat(cache.get(2)).isSameAs(LARGE);
    assertThat(cache.size()).isEqualTo(1);
    assertThat(cache.bytes()).isEqualTo(RowCache.sizeOf(LARGE));
  }

  @Test
  void aSeqAlreadyHeldKeepsItsRowAndIsCountedOnce() {
    RowCache cache = new RowCache(1 << 20);
    OutboxEvent other = Events.journal(1).envelope("another").build();

    cache.offer(SMALL, true);
    cache.offer(other, true);
    assertThat(cache.get(1)).isSameAs(SMALL);
    assertThat(cache.bytes()).isEqualTo(RowCache.sizeOf(SMALL));
  }

  @Test
  void aZeroBudgetHoldsNothingAndANegativeOneIsRefused() {
    RowCache none = new RowCache(0);
    none.offer(SMALL, true);
    assertThat(none.get(1)).isNull();
    assertThat(none.size()).isZero();
    assertThatThrownBy(() -> new RowCache(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BatchCutFunction(10, 10, null).withRowCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("row cache");
  }

  @Test
  void aDeferredRowIsTakenOnceForStateAndItsRemovalBeforeThatSkipsState() {
    OutboxEvent third = Events.journal(3).build();
    RowCache cache = new RowCache(1 << 20);
    assertThat(cache.offer(SMALL, true)).isTrue();
    assertThat(cache.offer(LARGE, false)).isTrue();
    assertThat(cache.offer(third, false)).isTrue();
    assertThat(cache.offer(Events.journal(3).build(), true)).isFalse(); // held already
    assertThat(cache.deferred()).isEqualTo(2);

    assertThat(cache.remove(3)).isFalse(); // deferred: state never held it
    assertThat(cache.deferred()).isEqualTo(1);
    assertThat(cache.remove(1)).isTrue(); // written through
    assertThat(cache.remove(42)).isTrue(); // not cached: state holds it

    assertThat(cache.takeDeferred()).containsExactly(LARGE);
    assertThat(cache.deferred()).isZero();
    assertThat(cache.takeDeferred()).isEmpty();
    assertThat(cache.remove(2)).isTrue(); // written at a checkpoint
    assertThat(cache.bytes()).isZero();
  }
}
