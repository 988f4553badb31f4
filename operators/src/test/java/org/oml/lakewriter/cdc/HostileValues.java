package org.oml.lakewriter.cdc;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.testing.Events;

/** The hostile column values of issue 16, as jqwik generators. */
final class HostileValues {
  private HostileValues() {}

  /** Tenant ids that try to climb out of, or alias, a lake prefix; and some valid ones. */
  static Arbitrary<String> tenantIds() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "../x", "..", ".", "a/b", "a\\b", "/abs", "%2e%2e", "%2F", "acme%00", "acme\0",
            "ａｃｍｅ", // full-width look-alike
            "аcme", // Cyrillic a
            "acme\u200b", // zero-width space
            "ACME", "", " ", "acme ", "acme.", "_invalid", "_delta_log", "-acme",
            "a".repeat(63), "a".repeat(64), "a".repeat(65), "acme\n", "\ud800"),
        Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('_', '-').ofMinLength(1)
            .ofMaxLength(70),
        Arbitraries.strings().all().ofMaxLength(70));
  }

  static Arbitrary<String> kinds() {
    return Arbitraries.oneOf(
        Arbitraries.of(EventKind.values()).map(EventKind::wireName),
        Arbitraries.of("MATERIALIZE", "materialize\0", " journal", "", "erase;drop"),
        texts());
  }

  /**
   * Text a decoder may hand over: any UTF-16 (lone surrogates included), NUL bytes, invalid UTF-8
   * decoded with replacement characters, look-alikes, and huge strings.
   */
  static Arbitrary<String> texts() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(80),
        Arbitraries.strings().withChars('\0', 'a', '\ud800', '\udfff', '\ufffd').ofMaxLength(40),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(80)
            .map(b -> new String(b, StandardCharsets.UTF_8)),
        Arbitraries.integers().between(60_000, 300_000).map("x"::repeat));
  }

  /** A digest for a body: right in any case, truncated, extended, of another body, not hex. */
  static Arbitrary<Function<byte[], String>> digestVariants() {
    return Arbitraries.of(
        Events::sha256Hex,
        b -> Events.sha256Hex(b).toUpperCase(Locale.ROOT),
        b -> mixedCase(Events.sha256Hex(b)),
        b -> Events.sha256Hex(b).substring(0, 63),
        b -> Events.sha256Hex(b) + "0",
        b -> Events.sha256Hex(b).substring(0, 32),
        b -> Events.sha256Hex(new byte[] {1}),
        b -> "",
        b -> "zz".repeat(32),
        b -> " " + Events.sha256Hex(b),
        b -> Events.sha256Hex(b) + "\0");
  }

  static Arbitrary<Object> versions() {
    return Arbitraries.oneOf(
        Arbitraries.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE).map(v -> (Object) v),
        Arbitraries.longs().map(v -> (Object) v),
        Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE).map(v -> (Object) v),
        Arbitraries.of("3", "NaN", "", "9".repeat(40)).map(v -> (Object) v),
        Arbitraries.of(3.5d, Double.NaN).map(v -> (Object) v),
        Arbitraries.just((Object) new java.math.BigInteger("9".repeat(40))));
  }

  /** Envelopes: JSON objects, nested far too deep, huge, truncated, with trailing junk, not JSON. */
  static Arbitrary<String> envelopes() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "{}", "{\"sig\":\"s\"}", "[]", "null", "1", "\"s\"", "{", "{} junk", "{\"a\":\"\0\"}",
            "{\"a\":\"\ud800\"}", "{\"a\":1e999999999}", "{\"a\":" + "9".repeat(2000) + "}"),
        Arbitraries.integers().between(1, 200_000)
            .map(d -> "{\"a\":".repeat(d) + "1" + "}".repeat(d)),
        Arbitraries.integers().between(1, 200_000).map(d -> "[".repeat(d) + "]".repeat(d)),
        Arbitraries.integers().between(1, 200_000).map(d -> "[".repeat(d)),
        Arbitraries.integers().between(1, 3_000_000)
            .map(n -> "{\"big\":\"" + "x".repeat(n) + "\"}"),
        texts());
  }

  static Arbitrary<Object> eventTimes() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "2024-05-01T12:00:00Z",
            "2024-05-01T12:00:00.123456+14:00",
            "+999999999-12-31T23:59:59.999999999-18:00",
            "-999999999-01-01T00:00:00Z",
            "not a time",
            "",
            "2024-13-45T99:99:99Z").map(t -> (Object) t),
        Arbitraries.of(
            (Object) OffsetDateTime.MAX,
            (Object) OffsetDateTime.MIN,
            (Object) OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
            (Object) new Timestamp(Long.MAX_VALUE),
            (Object) new Timestamp(0),
            (Object) 1_700_000_000L),
        texts().map(t -> (Object) t));
  }

  private static String mixedCase(String hex) {
    StringBuilder sb = new StringBuilder(hex.length());
    for (int i = 0; i < hex.length(); i++) {
      char c = hex.charAt(i);
      sb.append(i % 2 == 0 ? Character.toUpperCase(c) : c);
    }
    return sb.toString();
  }
}
