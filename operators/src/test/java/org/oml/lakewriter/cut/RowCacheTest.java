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

    cache.offer(SMALL);
    cache.offer(LARGE); // one byte short
    assertThat(cache.get(1)).isSameAs(SMALL);
    assertThat(cache.get(2)).isNull();
    assertThat(cache.bytes()).isEqualTo(small);

    cache.remove(1);
    cache.remove(1); // a second remove frees nothing twice
    assertThat(cache.bytes()).isZero();
    cache.offer(LARGE);
    assertThat(cache.get(2)).isSameAs(LARGE);
    assertThat(cache.size()).isEqualTo(1);
    assertThat(cache.bytes()).isEqualTo(RowCache.sizeOf(LARGE));
  }

  @Test
  void aSeqAlreadyHeldKeepsItsRowAndIsCountedOnce() {
    RowCache cache = new RowCache(1 << 20);
    OutboxEvent other = Events.journal(1).envelope("another").build();

    cache.offer(SMALL);
    cache.offer(other);
    assertThat(cache.get(1)).isSameAs(SMALL);
    assertThat(cache.bytes()).isEqualTo(RowCache.sizeOf(SMALL));
  }

  @Test
  void aZeroBudgetHoldsNothingAndANegativeOneIsRefused() {
    RowCache none = new RowCache(0);
    none.offer(SMALL);
    assertThat(none.get(1)).isNull();
    assertThat(none.size()).isZero();
    assertThatThrownBy(() -> new RowCache(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BatchCutFunction(10, 10, null).withRowCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("row cache");
  }
}
