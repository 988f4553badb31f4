package org.oml.lakewriter.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.oml.lakewriter.app.LakeWriterConfig;
import picocli.CommandLine.Option;

/** {@code --config FILE} and {@code -D key=value}: the options of every command that connects. */
public final class ConfigMixin {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Properties file with lake writer options (see README, Configuration).")
  Path configFile;

  @Option(
      names = "-D",
      paramLabel = "KEY=VALUE",
      description = "An option, overriding the config file. Unknown keys are rejected.")
  Map<String, String> overrides = new LinkedHashMap<>();

  public LakeWriterConfig load() {
    return LakeWriterConfig.load(configFile, overrides);
  }
}
