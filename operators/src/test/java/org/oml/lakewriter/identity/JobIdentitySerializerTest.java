package org.oml.lakewriter.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.testing.SerdeChecks;

class JobIdentitySerializerTest {
  static final JobIdentity STORED_V1 =
      new JobIdentity("7300000000000000001", "oml", "oml_lakewriter", "w1", "file:///lake/");

  static final String STORED_V1_HEX =
      "0000001337333030303030303030303030303030303031000000036f6d6c0000000e6f6d6c5f6c616b657772697465720000000277310000000d66696c653a2f2f2f6c616b652f";

  private final JobIdentitySerializer serializer = new JobIdentitySerializer();

  @Test
  void roundTrips() throws IOException {
    JobIdentity id = new JobIdentity("1", "db \u00e9", "s", "w", "s3a://b/p".repeat(10_000));

    assertThat(SerdeChecks.direct(serializer, id)).isEqualTo(id);
    assertThat(SerdeChecks.typed(JobIdentitySerializer.class, id)).isEqualTo(id);
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1);
    assertThat(serializer.serialize(STORED_V1)).isEqualTo(stored);
  }

  @Test
  void refusesAnUnknownVersion() throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1);

    assertThatThrownBy(() -> serializer.deserialize(2, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void differencesNameBothSides() {
    JobIdentity other =
        new JobIdentity("7300000000000000002", "oml", "oml_lakewriter", "w2", "file:///other/");

    assertThat(STORED_V1.differences(STORED_V1)).isEmpty();
    assertThat(STORED_V1.differences(other))
        .containsExactly(
            "database: 'oml' of cluster 7300000000000000001 vs 'oml' of cluster"
                + " 7300000000000000002",
            "writer.id: w1 vs w2",
            "lake.root: file:///lake/ vs file:///other/");
  }
}
