/**
 * The tenants' quarantine: a tenant whose table cannot take a batch is held, durably, in the lake
 * ({@link org.oml.lakewriter.delta.quarantine.LakeQuarantineStore}); its rows wait in the outbox
 * while other tenants go on, and are replayed from there ({@link
 * org.oml.lakewriter.delta.quarantine.TenantReplay}) through the writer's ordinary planning path,
 * automatically for a plan that no longer matches its table, after {@code lakewriter quarantine
 * release} otherwise. The invariant is on {@link org.oml.lakewriter.delta.quarantine.Quarantine}:
 * whoever skips a tenant's rows first lowers its resume point below them. Design:
 * {@code docs/quarantine.md}.
 */
package org.oml.lakewriter.delta.quarantine;
