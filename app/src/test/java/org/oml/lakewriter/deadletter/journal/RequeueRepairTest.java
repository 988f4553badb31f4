package org.oml.lakewriter.deadletter.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.ErrorClass;

/** Item 5 of issue 17: what repairs each class, and docs/cli.md says the same. */
class RequeueRepairTest {
  @Test
  void everyClassHasARepairAndOnlyADigestMismatchIsRepairedByABodyFile() {
    for (ErrorClass c : ErrorClass.values()) {
      RequeueRepair.Repair r = RequeueRepair.of(c);
      assertThat(r.how()).as("%s", c).isNotBlank();
      assertThat(r.bodyFile()).as("%s", c).isEqualTo(c == ErrorClass.DIGEST_MISMATCH);
    }
    for (ErrorClass c :
        new ErrorClass[] {
          ErrorClass.UNPARSEABLE_ENVELOPE, ErrorClass.UNKNOWN_KIND, ErrorClass.INVALID_TENANT
        }) {
      assertThat(RequeueRepair.of(c).requeueCanRepair()).as("%s", c).isFalse();
      assertThat(RequeueRepair.of(c).how())
          .as("%s", c)
          .contains("--body-file cannot")
          .doesNotContain("requeue with --body-file");
    }
    assertThat(RequeueRepair.describe("NO_SUCH_CLASS")).contains("no known repair");
  }

  @Test
  void theDocumentedTableListsEveryClass() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "cli.md"));
    for (ErrorClass c : ErrorClass.values()) {
      assertThat(doc).as("docs/cli.md repair table").containsPattern("\\| `" + c.name() + "` \\|");
    }
  }
}
