package org.oml.lakewriter.cdc;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Parses the ISO-8601 offset date-times Debezium renders {@code timestamptz} columns as ({@code
 * io.debezium.time.ZonedTimestamp}, e.g. {@code 2026-12-07T01:17:29.123456Z}) to the instant that
 * {@code OffsetDateTime.parse(text).toInstant()} gives.
 *
 * <p>{@code DateTimeFormatter} builds a field map and resolves it for every value: at a million
 * outbox rows it was 30% of the source's work, 4% of the whole job's (docs/scale.md, stop 52).
 * The shape Debezium writes (a four-digit year, {@code T}, seconds, an optional fraction of one to
 * nine digits, {@code Z} or {@code ±HH:MM} or {@code ±HH:MM:SS}) is read here by position; every
 * other text, valid or not, goes to {@code OffsetDateTime.parse}, so the result and the error of
 * any text are the JDK's.
 */
final class IsoTimestamps {
  private IsoTimestamps() {}

  static Instant parse(String text) {
    Instant fast = parseCommonShape(text);
    return fast != null ? fast : OffsetDateTime.parse(text).toInstant();
  }

  /** The instant of a text of the common shape; null for any other text (valid or not). */
  static Instant parseCommonShape(String s) {
    int n = s.length();
    if (n < 20
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != 'T'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      while (i < n && i - start < 9 && isDigit(s.charAt(i))) {
        nanos = nanos * 10 + (s.charAt(i) - '0');
        i++;
      }
      int width = i - start;
      if (width == 0 || (i < n && isDigit(s.charAt(i)))) {
        return null;
      }
      for (int k = width; k < 9; k++) {
        nanos *= 10;
      }
    }
    int offsetSeconds = offsetSeconds(s, i);
    if (offsetSeconds == Integer.MIN_VALUE) {
      return null;
    }
    try {
      long epochDay = LocalDate.of(year, month, day).toEpochDay();
      ZoneOffset.ofTotalSeconds(offsetSeconds); // the JDK's range check
      long seconds = epochDay * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds;
      return Instant.ofEpochSecond(seconds, nanos);
    } catch (DateTimeException e) {
      return null; // e.g. February 30th: the JDK's parse names the error
    }
  }

  /** {@code Z}, {@code ±HH:MM} or {@code ±HH:MM:SS} from {@code i} to the end; else MIN_VALUE. */
  private static int offsetSeconds(String s, int i) {
    int rest = s.length() - i;
    if (rest == 1 && s.charAt(i) == 'Z') {
      return 0;
    }
    if ((rest != 6 && rest != 9) || (s.charAt(i) != '+' && s.charAt(i) != '-')) {
      return Integer.MIN_VALUE;
    }
    int hours = digits(s, i + 1, 2);
    int minutes = s.charAt(i + 3) == ':' ? digits(s, i + 4, 2) : -1;
    int seconds = rest == 9 ? (s.charAt(i + 6) == ':' ? digits(s, i + 7, 2) : -1) : 0;
    if (hours < 0 || hours > 18 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) {
      return Integer.MIN_VALUE;
    }
    int total = hours * 3_600 + minutes * 60 + seconds;
    return s.charAt(i) == '-' ? -total : total;
  }

  /** The value of {@code count} decimal digits at {@code from}; -1 if any is not a digit. */
  private static int digits(String s, int from, int count) {
    int value = 0;
    for (int k = from; k < from + count; k++) {
      char c = s.charAt(k);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
