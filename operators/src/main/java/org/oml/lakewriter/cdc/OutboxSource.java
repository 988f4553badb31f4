package org.oml.lakewriter.cdc;

import java.util.Properties;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.cdc.connectors.base.options.StartupOptions;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder.PostgresIncrementalSource;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfigFactory;
import org.apache.flink.cdc.connectors.postgres.source.offset.PostgresOffsetFactory;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.validate.EventValidator;

/**
 * The outbox CDC source: Flink CDC's incremental PostgreSQL source over the outbox and the
 * horizon table, pgoutput, a named slot and a publication that we create ourselves.
 *
 * <p>The horizon tick is not Debezium's heartbeat action query (see {@code HorizonTicker} for
 * why); the heartbeat only lets the slot's confirmed LSN advance on an idle outbox.
 */
public final class OutboxSource {
  public static final String OUTBOX_TABLE = "oml_outbox";
  public static final String HORIZON_TABLE = "oml_lake_horizon";

  private OutboxSource() {}

  public static Source<OutboxChange, ?, ?> create(OutboxSourceOptions o) {
    EventValidator validator = new EventValidator(o.maxBodyBytes());
    OutboxDeserializer deserializer =
        new OutboxDeserializer(OUTBOX_TABLE, HORIZON_TABLE, o.writerId(), validator);
    // What builder.build() does, with a dialect whose chunk-splitting pool also gets the URL's
    // driver parameters (sslmode, sslrootcert, sslcert, ...): Flink CDC's own pool drops them.
    PostgresSourceConfigFactory configFactory = builder(o, deserializer).getConfigFactory();
    return new PostgresIncrementalSource<>(
        configFactory,
        deserializer,
        new PostgresOffsetFactory(),
        new DriverParameterDialect(configFactory.create(0)));
  }

  /** The configured builder, short of {@code build()}. */
  static PostgresSourceBuilder<OutboxChange> builder(
      OutboxSourceOptions o, OutboxDeserializer deserializer) {
    return PostgresIncrementalSource.<OutboxChange>builder()
        .hostname(o.hostname())
        .port(o.port())
        .database(o.database())
        .schemaList(o.schema())
        .tableList(o.schema() + "." + OUTBOX_TABLE, o.schema() + "." + HORIZON_TABLE)
        .username(o.username())
        .password(o.password() == null ? "" : o.password())
        .slotName(o.slotName())
        .decodingPluginName("pgoutput")
        .startupOptions(StartupOptions.initial())
        // No backfill after each snapshot split. The backfill opens a temporary replication slot
        // per split, and creating a logical slot waits until every transaction running anywhere
        // in the cluster has ended: one report left open in another database stalled every fresh
        // start in its snapshot. Without it the snapshot is at-least-once, which the outbox
        // absorbs: rows are insert-only and buffered by seq (a row read twice is one row), and a
        // row the snapshot missed is fetched by the completeness check before its range is cut.
        .skipSnapshotBackfill(true)
        .splitSize(o.cdc().snapshotSplitSize())
        .fetchSize(o.cdc().snapshotFetchSize())
        .heartbeatInterval(o.tickPeriod())
        .debeziumProperties(debeziumProperties(o))
        .deserializer(deserializer);
  }

  static Properties debeziumProperties(OutboxSourceOptions o) {
    Properties p = new Properties();
    p.setProperty("publication.name", o.publication());
    // We create the publication: with "filtered", the snapshot backfill runs ALTER PUBLICATION.
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("binary.handling.mode", "bytes");
    // Debezium's batch, queue and poll interval (its default 500 ms poll went straight into the
    // frontier lag under a light load).
    o.cdc().applyTo(p);
    // The parameters of postgres.url (sslmode, sslrootcert, socketTimeout, ...) reach Debezium's
    // connections (the replication stream and its snapshot reads) as database.<name>: Debezium
    // hands every database.* property to the driver without the prefix. Flink CDC's
    // chunk-splitting pool gets them from the same properties (DriverParameterPoolFactory).
    o.jdbc().urlParameters().forEach((k, v) -> p.setProperty("database." + k, v));
    return p;
  }
}
