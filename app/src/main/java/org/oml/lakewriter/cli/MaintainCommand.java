package org.oml.lakewriter.cli;

import picocli.CommandLine.Command;

/**
 * {@code lakewriter maintain ...}: lake maintenance for operators (issue 14). This branch brings
 * {@code vacuum}; {@code compact} and {@code checkpoint} are separate subcommands, each its own
 * class, listed here side by side.
 */
@Command(
    name = "maintain",
    mixinStandardHelpOptions = true,
    description = "Lake maintenance: vacuum (safe alongside a running writer).",
    subcommands = {MaintainVacuumCommand.class})
final class MaintainCommand {}
