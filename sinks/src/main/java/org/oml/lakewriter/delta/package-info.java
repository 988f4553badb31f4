/**
 * The Delta two-phase-commit sink and its lake layout.
 *
 * <ul>
 *   <li>{@code ...delta}: the {@link org.oml.lakewriter.delta.DeltaTableClient} interface that hides
 *       Delta Kernel, table ids ({@link org.oml.lakewriter.delta.TableId}), and every table's
 *       columns ({@link org.oml.lakewriter.delta.LakeSchemas}).
 *   <li>{@code ...delta.kernel}: the only package that touches Delta Kernel classes.
 *   <li>{@code ...delta.logstore}, {@code ...delta.localfs}: atomic commits and fork-free writes on
 *       {@code file:} lake roots.
 *   <li>{@code ...delta.writer}: routing, rows, per-table grouping, the sink writer.
 *   <li>{@code ...delta.merge}: the silver MERGE of retractions (demote, erase, simulation_end,
 *       reassign) on {@code (artifact_id, version)}: state transitions, the in-batch fold, the
 *       copy-on-write of files that hold retracted rows, and the RETRACT_WITHOUT_ROW finding.
 *   <li>{@code ...delta.committer}: committables, their serializer, the committer.
 *   <li>{@code ...delta.quarantine}: the durable per-tenant quarantine in the lake, which the
 *       writer and the committer both honour, and the replay of a held tenant from the outbox (see
 *       {@code docs/quarantine.md}).
 *   <li>{@code ...delta.frontier}: where the committed frontier is published (a cache).
 *   <li>{@code ...delta.sink}: the Flink {@code Sink} and its builder.
 *   <li>{@code ...delta.read}: a read-only view of what landed, for the command line and tests.
 * </ul>
 *
 * <p>Lake layout: {@code <lake-root>/<tenant>/bronze/journal_events}, {@code
 * <lake-root>/<tenant>/silver/memories}, {@code <lake-root>/<tenant>/dead_letter}, and {@code
 * <lake-root>/_invalid/dead_letter} for rows whose tenant id is not one; quarantine records under
 * {@code <lake-root>/_lakewriter/quarantine/<tenant>/}.
 */
package org.oml.lakewriter.delta;
