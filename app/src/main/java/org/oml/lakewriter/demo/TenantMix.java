package org.oml.lakewriter.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.oml.lakewriter.validate.EventValidator;

/**
 * The tenants of a run and how busy each is.
 *
 * <p>Invariant: tenant ids are a fixed list (named tenants first, then {@code tenant-07}, ...),
 * each valid for {@link EventValidator#TENANT_ID}, and a pick costs exactly one draw from the
 * caller's random stream, so that the same stream picks the same tenants.
 */
final class TenantMix {
  private static final List<String> NAMED_TENANTS =
      List.of("acme", "globex", "initech", "umbrella", "hooli", "soylent");

  private final List<String> ids;
  private final double[] cumulativeWeights;

  TenantMix(int count) {
    this.ids = tenantIds(count);
    // A mild skew, as in real life: the first tenants are the busiest.
    this.cumulativeWeights = new double[ids.size()];
    double sum = 0;
    for (int i = 0; i < cumulativeWeights.length; i++) {
      sum += 1 / Math.sqrt(i + 1);
      cumulativeWeights[i] = sum;
    }
  }

  /** The first {@code count} tenant ids. */
  static List<String> tenantIds(int count) {
    List<String> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(
          i < NAMED_TENANTS.size() ? NAMED_TENANTS.get(i) : String.format("tenant-%02d", i + 1));
    }
    return List.copyOf(ids);
  }

  /** The busiest tenant. */
  String first() {
    return ids.get(0);
  }

  /** A tenant, by weight. */
  String pick(Random random) {
    double x = random.nextDouble() * cumulativeWeights[cumulativeWeights.length - 1];
    for (int i = 0; i < cumulativeWeights.length; i++) {
      if (x < cumulativeWeights[i]) {
        return ids.get(i);
      }
    }
    return ids.get(ids.size() - 1);
  }
}
