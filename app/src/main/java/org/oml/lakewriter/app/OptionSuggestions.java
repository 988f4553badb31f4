package org.oml.lakewriter.app;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * "Did you mean": the known option key nearest to a misspelt one, by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours count one each). A key is suggested only when
 * it is close enough to be the likely intent: at most a third of the key's length, and at most 3.
 */
public final class OptionSuggestions {
  private OptionSuggestions() {}

  /** The closest of {@code known} to {@code key}, if one is close enough; ties keep the first. */
  public static Optional<String> closest(String key, Collection<String> known) {
    String typed = key.toLowerCase(Locale.ROOT);
    int limit = Math.min(3, Math.max(1, typed.length() / 3));
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : known) {
      int d = distance(typed, candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return bestDistance <= limit ? Optional.ofNullable(best) : Optional.empty();
  }

  /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits). */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
