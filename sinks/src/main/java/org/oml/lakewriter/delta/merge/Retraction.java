package org.oml.lakewriter.delta.merge;

import java.util.Objects;
import java.util.Optional;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * One retraction of a silver row: at {@code seq}, {@code kind} applies to the rows of {@code key}.
 * {@code workareaId} is the new workarea of a {@code reassign} (and is carried, unused, by the
 * other kinds).
 */
public record Retraction(long seq, ArtifactKey key, EventKind kind, String workareaId) {
  public Retraction {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(kind, "kind");
    if (!kind.isRetraction()) {
      throw new IllegalArgumentException(kind + " is not a retraction");
    }
  }

  /** The retraction an event asks for; empty if it is none, or lacks its artifact key. */
  public static Optional<Retraction> of(OutboxEvent event) {
    Optional<EventKind> kind = event.eventKind().filter(EventKind::isRetraction);
    if (kind.isEmpty() || event.artifactId() == null || event.artifactVersion() == null) {
      return Optional.empty();
    }
    ArtifactKey key = new ArtifactKey(event.artifactId(), event.artifactVersion());
    return Optional.of(new Retraction(event.seq(), key, kind.get(), event.workareaId()));
  }

  @Override
  public String toString() {
    return kind.wireName() + "@" + seq + " of " + key;
  }
}
