package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The positional parse against the JDK's, on Debezium's shapes and on mangled texts. */
class IsoTimestampsTest {
  private static final String ALPHABET = "0123456789-+:.TZtz x";

  @Test
  void debeziumShapesAreReadByPositionToTheJdksInstant() {
    Random random = new Random(52);
    for (int i = 0; i < 20_000; i++) {
      String text = randomTimestamp(random);
      Instant expected = OffsetDateTime.parse(text).toInstant();
      assertThat(IsoTimestamps.parseCommonShape(text)).as(text).isEqualTo(expected);
      assertThat(IsoTimestamps.parse(text)).as(text).isEqualTo(expected);
    }
    assertThat(IsoTimestamps.parseCommonShape("2026-12-07T01:17:29.123456Z"))
        .isEqualTo(Instant.parse("2026-12-07T01:17:29.123456Z"));
    assertThat(IsoTimestamps.parseCommonShape("1969-12-31T23:59:59.999999-05:30"))
        .isEqualTo(Instant.parse("1970-01-01T05:29:59.999999Z"));
  }

  @Test
  void everyOtherTextGetsTheJdksAnswerOrItsError() {
    Random random = new Random(7);
    int failures = 0;
    for (int i = 0; i < 50_000; i++) {
      String text = mangle(randomTimestamp(random), random);
      Object jdk = outcome(() -> OffsetDateTime.parse(text).toInstant());
      Object ours = outcome(() -> IsoTimestamps.parse(text));
      assertThat(ours).as(text).isEqualTo(jdk);
      failures += jdk instanceof String ? 1 : 0;
    }
    assertThat(failures).as("mangled texts the JDK refuses").isGreaterThan(10_000);
    for (String text :
        new String[] {
          "2026-02-30T00:00:00Z", "2026-12-07T24:00:00Z", "2026-12-07T23:59:60Z",
          "2026-12-07T01:17:29.Z", "2026-12-07T01:17:29.1234567890Z", "2026-12-07T01:17:29+19:00",
          "2026-12-07t01:17:29z", "2026-12-07T01:17Z", "+12026-12-07T01:17:29Z",
          "2026-12-07T01:17:29+05:30:15", "2026-12-07T01:17:29+0530", ""
        }) {
      assertThat(outcome(() -> IsoTimestamps.parse(text)))
          .as(text)
          .isEqualTo(outcome(() -> OffsetDateTime.parse(text).toInstant()));
    }
  }

  private static String randomTimestamp(Random random) {
    long seconds = random.nextLong() % 4_000_000_000L + 1_000_000_000L;
    int nanos = random.nextInt(1_000_000_000);
    nanos = switch (random.nextInt(4)) {
      case 0 -> 0;
      case 1 -> nanos / 1_000 * 1_000; // microseconds, as PostgreSQL keeps them
      case 2 -> nanos / 1_000_000 * 1_000_000;
      default -> nanos;
    };
    int offset = random.nextBoolean() ? 0 : (random.nextInt(36 * 4 + 1) - 72) * 900;
    if (random.nextInt(10) == 0) {
      offset += random.nextInt(60) * (offset < 0 ? -1 : 1);
    }
    ZoneOffset zone = ZoneOffset.ofTotalSeconds(Math.max(-64_800, Math.min(64_800, offset)));
    return OffsetDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), zone)
        .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
  }

  private static String mangle(String text, Random random) {
    StringBuilder b = new StringBuilder(text);
    int edits = 1 + random.nextInt(2);
    for (int e = 0; e < edits && b.length() > 0; e++) {
      int at = random.nextInt(b.length());
      char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
      switch (random.nextInt(3)) {
        case 0 -> b.setCharAt(at, c);
        case 1 -> b.insert(at, c);
        default -> b.deleteCharAt(at);
      }
    }
    return b.toString();
  }

  /** The instant, or the error's class and message. */
  private static Object outcome(java.util.concurrent.Callable<Instant> parse) {
    Throwable error = catchThrowable(() -> parse.call());
    if (error != null) {
      return error.getClass().getName() + ": " + error.getMessage();
    }
    try {
      return parse.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
