// Independent labels: written by reading the SQL text only, without the parser's output or test/sql/labels.ts, on 2026-11-22.
/**
 * Per-file expected lineage for a subset of `../shared/fixtures/sql` disjoint from `labels.ts`.
 *
 * Convention (docs/sql-lineage.md, src/sql/types.ts `formatTableRef`):
 * - per file: sources = union of everything read by any statement (INSERT/CTAS/CSAS queries and plain
 *   SELECTs), sinks = union of INSERT/CTAS/CSAS targets; a table written by one statement and read by
 *   another is in both sets;
 * - plain DDL (CREATE TABLE/STREAM without AS, ALTER, SET, connectors) reads and writes nothing;
 * - views are expanded into their sources (a view name is neither a source nor a sink);
 * - CTE names, UNNEST/LATERAL aliases, table functions and ML models are not tables;
 * - names as written, quotes removed, parts joined with `.`, a part that contains a dot is back-quoted;
 *   Flink keeps case, ksqlDB upper-cases unquoted parts;
 * - doc bugs kept in the corpus as robustness cases (trailing comma, stray `;`) are labelled with the
 *   statement's evident intent.
 */
export interface IndependentLabel {
  file: string;
  dialect: 'flink' | 'ksql';
  sources: string[];
  sinks: string[];
  note?: string;
}

export const INDEPENDENT_LABELS: IndependentLabel[] = [
  // ---------------------------------------------------------------- Flink
  {
    file: 'flink/apache-flink/docs-joins__event-time-temporal-comments-trailing-comma.sql',
    dialect: 'flink',
    sources: ['orders', 'currency_rates'],
    sinks: [],
    note: 'event-time temporal join; trailing comma before FROM (doc bug) labelled by intent',
  },
  {
    file: 'flink/apache-flink/docs-joins__processing-time-temporal.sql',
    dialect: 'flink',
    sources: ['Orders', 'LatestRates'],
    sinks: [],
    note: 'FOR SYSTEM_TIME AS OF before the alias',
  },
  {
    file: 'flink/apache-flink/docs-joins__lookup-join-jdbc.sql',
    dialect: 'flink',
    sources: ['Orders', 'Customers'],
    sinks: [],
  },
  {
    file: 'flink/apache-flink/docs-kafka-to-kafka__script.sql',
    dialect: 'flink',
    sources: ['kafka_input'],
    sinks: ['kafka_output'],
  },
  {
    file: 'flink/apache-flink/sql-client-test__statement_set-streaming.sql',
    dialect: 'flink',
    sources: ['StreamingTable'],
    sinks: ['StreamingTable'],
    note: 'BEGIN STATEMENT SET; INSERT from VALUES subquery (no source); then SELECT * FROM StreamingTable',
  },
  {
    file: 'flink/confluent-cloud-docs/create-table__ctas-equivalence-script.sql',
    dialect: 'flink',
    sources: ['source_table'],
    sinks: ['my_ctas_table'],
  },
  {
    file: 'flink/confluent-cloud-docs/joins__cross-join-unnest.sql',
    dialect: 'flink',
    sources: ['orders'],
    sinks: [],
  },
  {
    file: 'flink/confluent-cloud-docs/joins__event-time-temporal-rowtime-script.sql',
    dialect: 'flink',
    sources: ['orders', 'currency_rates'],
    sinks: [],
  },
  {
    file: 'flink/confluent-cloud-docs/window-tvf__tumble-offset-aggregation.sql',
    dialect: 'flink',
    sources: ['examples.marketplace.orders'],
    sinks: [],
    note: 'TUMBLE with offset over a three-part backticked name',
  },
  {
    file: 'flink/confluent-cloud-docs/sql-examples__headers-metadata-script.sql',
    dialect: 'flink',
    sources: ['t_headers'],
    sinks: ['t_headers'],
    note: 'INSERT ... SELECT without FROM, then SELECT * FROM t_headers',
  },
  {
    file: 'flink/confluent-demo-dsp-fraud-detection/lab1__create-insert-user-transaction.sql',
    dialect: 'flink',
    sources: ['`fd.SAMPLE.USER_TRANSACTION`'],
    sinks: ['user_transaction'],
  },
  {
    file: 'flink/confluent-demo-scene/agentic-rag__insert-four-lateral-ml-predict.sql',
    dialect: 'flink',
    sources: ['product_reviews'],
    sinks: ['nlp_product_reviews'],
  },
  {
    file: 'flink/confluent-demo-scene/http-streaming__insert-cross-join-unnest.sql',
    dialect: 'flink',
    sources: ['all_flights'],
    sinks: ['all_flights_cleansed'],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab1__ctas-lateral-ai-run-agent.sql',
    dialect: 'flink',
    sources: ['enriched_orders'],
    sinks: ['price_match_results'],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab2__scalar-subqueries-comments.sql',
    dialect: 'flink',
    sources: ['queries', 'queries_embed', 'search_results', 'search_results_response'],
    sinks: [],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab3__ctas-two-ctes-tumble.sql',
    dialect: 'flink',
    sources: ['ride_requests'],
    sinks: ['anomalies_per_zone'],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab3__ctas-with-options-nested-lateral-vector-search.sql',
    dialect: 'flink',
    sources: ['anomalies_per_zone', 'documents_vectordb_lab3'],
    sinks: ['anomalies_enriched'],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab4__set-ctas-interval-join-limit.sql',
    dialect: 'flink',
    sources: ['claims', 'claims_anomalies_by_city'],
    sinks: ['claims_to_investigate'],
  },
  {
    file: 'flink/confluent-quickstart-streaming-agents/lab4__set-ctas-two-ctes.sql',
    dialect: 'flink',
    sources: ['claims'],
    sinks: ['claims_anomalies_by_city'],
  },
  {
    file: 'flink/confluent-tutorials/pattern-matching__match-recognize-same-direction.sql',
    dialect: 'flink',
    sources: ['temperature_readings'],
    sinks: [],
  },
  {
    file: 'flink/confluent-tutorials/deduplication-windowed__window-dedup.sql',
    dialect: 'flink',
    sources: ['clicks'],
    sinks: [],
  },
  {
    file: 'flink/confluent-tutorials/lagging-events__cte-lag.sql',
    dialect: 'flink',
    sources: ['temperature_readings'],
    sinks: [],
  },
  {
    file: 'flink/confluent-tutorials/multi-joins__oss-temporal-ts.sql',
    dialect: 'flink',
    sources: ['orders', 'customers', 'products'],
    sinks: [],
  },
  {
    file: 'flink/shift-left-utils/dml.src_c360_users__insert-column-list-cte-comments.sql',
    dialect: 'flink',
    sources: ['sl_raw_users'],
    sinks: ['sl_c360_src_users'],
  },
  {
    file: 'flink/shift-left-utils/dml.src_common_tenant__cte-named-final-nested-dedup.sql',
    dialect: 'flink',
    sources: ['sl_raw_tenants'],
    sinks: ['sl_cmn_src_tenants'],
  },
  {
    file: 'flink/shift-left-utils/ksql-ref__dml.geospacial__temporal-join-unquoted-rowtime.sql',
    dialect: 'flink',
    sources: ['engineers', 'tickets'],
    sinks: ['destinations'],
  },
  {
    file: 'flink/ververica-flink-sql-cookbook/aggregations-and-analytics__11_window_top_n.sql',
    dialect: 'flink',
    sources: ['orders'],
    sinks: [],
  },
  {
    file: 'flink/ververica-flink-sql-cookbook/joins__05_star_schema__b0.sql',
    dialect: 'flink',
    sources: ['train_activities', 'booking_channels', 'passengers', 'stations'],
    sinks: [],
    note:
      'stray `;` after the first LEFT JOIN (doc bug) labelled by intent: one SELECT with four temporal joins. ' +
      'Strictly executed, only the first part (train_activities, booking_channels) is valid SQL',
  },
  {
    file: 'flink/ververica-flink-sql-cookbook/foundations__03_temporary_table.sql',
    dialect: 'flink',
    sources: ['server_logs'],
    sinks: ['client_errors'],
  },
  {
    file: 'flink/confluent-terraform-provider/flink-carry-over-offset__readme-insert-column-list.sql',
    dialect: 'flink',
    sources: ['examples.marketplace.customers'],
    sinks: ['customers_source'],
  },
  {
    file: 'flink/ververica-flink-sql-cookbook/joins__02_interval_joins.sql',
    dialect: 'flink',
    sources: ['orders', 'shipments'],
    sinks: [],
  },
  {
    file: 'flink/ververica-flink-sql-cookbook/other-builtin-functions__03_current_watermark.sql',
    dialect: 'flink',
    sources: ['mobile_usage'],
    sinks: ['unique_users_per_window', 'late_usage_events'],
    note: 'two temporary views (expanded to mobile_usage) read by a BEGIN STATEMENT SET with a TUMBLE over a view',
  },
  {
    file: 'flink/lineage-bridge/infra-demo__enriched_orders.sql',
    dialect: 'flink',
    sources: ['`${confluent_kafka_topic.orders.topic_name}`', '`${confluent_kafka_topic.customers.topic_name}`'],
    sinks: ['`lineage_bridge.enriched_orders`'],
    note: 'backticked names containing dots (one part each), two of them Terraform placeholders',
  },
  // ---------------------------------------------------------------- ksqlDB
  {
    file: 'ksqldb/confluent-demo-scene/ksql-atm-fraud-detection__backslash-continuations-self-join.sql',
    dialect: 'ksql',
    sources: [
      'ATM_TXNS_GESS',
      'ATM_TXNS_GESS_02',
      'ACCOUNTS_STREAM',
      'ACCOUNTS_REKEYED',
      'ATM_POSSIBLE_FRAUD',
      'ACCOUNTS',
    ],
    sinks: ['ATM_TXNS_GESS_02', 'ATM_POSSIBLE_FRAUD', 'ACCOUNTS_REKEYED', 'ATM_POSSIBLE_FRAUD_ENRICHED'],
    note: 'includes the `SELECT * FROM ACCOUNTS_REKEYED LIMIT 1` query; the commented-out SELECT is ignored',
  },
  {
    file: 'ksqldb/confluent-demo-scene/pizza-orders__insert-into-fan-in-session-window.sql',
    dialect: 'ksql',
    sources: [
      'PIZZA_ORDERS',
      'PIZZA_ORDERS_COMPLETED',
      'PIZZA_ORDERS_CANCELLED',
      'PIZZA_ORDERS_KEYED',
      'PIZZA_ORDERS_CANCELLED_KEYED',
      'PIZZA_ORDERS_COMPLETED_KEYED',
      'PIZZA_ORDERS_COMMON',
      'PIZZA_ORDER_LINES',
    ],
    sinks: [
      'PIZZA_ORDERS_KEYED',
      'PIZZA_ORDERS_COMPLETED_KEYED',
      'PIZZA_ORDERS_CANCELLED_KEYED',
      'PIZZA_ORDERS_COMMON',
      'PIZZA_ORDERS_TABLE',
      'PIZZA_ORDER_LINES',
      'PIZZA_ORDER_LINES_FLAT',
    ],
  },
  {
    file: 'ksqldb/confluent-demo-scene/build-a-streaming-pipeline__connectors-csas-ctas.sql',
    dialect: 'ksql',
    sources: ['RATINGS', 'CUSTOMERS', 'RATINGS_WITH_CUSTOMER_DATA', 'RATINGS_PER_CUSTOMER_PER_15MINUTE'],
    sinks: [
      'RATINGS_LIVE',
      'RATINGS_TEST',
      'RATINGS_WITH_CUSTOMER_DATA',
      'UNHAPPY_PLATINUM_CUSTOMERS',
      'RATINGS_PER_CUSTOMER_PER_15MINUTE',
    ],
    note: 'connectors make no edges (docs/sql-lineage.md section 7); the two final SELECTs read the windowed table',
  },
  {
    file: 'ksqldb/confluent-ksqldb-recipes/aviation__process.sql',
    dialect: 'ksql',
    sources: [
      'BOOKINGS',
      'CUSTOMERS',
      'CUSTOMER_BOOKINGS',
      'FLIGHTS',
      'CF_STREAM',
      'FLIGHT_UPDATES',
      'CUSTOMER_FLIGHTS_REKEYED',
    ],
    sinks: ['CUSTOMER_BOOKINGS', 'CUSTOMER_FLIGHTS', 'CF_REKEY', 'CUSTOMER_FLIGHT_UPDATES'],
  },
  {
    file: 'ksqldb/confluent-ksqldb-recipes/clickstream__process.sql',
    dialect: 'ksql',
    sources: ['CLICKSTREAM', 'WEB_USERS', 'USER_CLICKSTREAM'],
    sinks: ['USER_CLICKSTREAM', 'PAGES_PER_MIN', 'CLICK_USER_SESSIONS', 'ERRORS_PER_MIN_ALERT', 'USER_IP_ACTIVITY'],
  },
  {
    file: 'ksqldb/confluent-ksqldb-recipes/payment-status-check__process.sql',
    dialect: 'ksql',
    sources: [
      'PAYMENTS',
      'CUSTOMERS',
      'AML_STATUS',
      'FUNDS_STATUS',
      'ENRICHED_PAYMENTS',
      'PAYMENT_STATUSES',
      'PAYMENTS_WITH_STATUS',
    ],
    sinks: ['ENRICHED_PAYMENTS', 'PAYMENT_STATUSES', 'PAYMENTS_WITH_STATUS', 'PAYMENTS_FINAL'],
  },
  {
    file: 'ksqldb/confluent-ksqldb-recipes/loyalty-rewards__process.sql',
    dialect: 'ksql',
    sources: ['PRODUCTS', 'PURCHASES', 'ALL_PRODUCTS', 'ENRICHED_PURCHASES'],
    sinks: [
      'ALL_PRODUCTS',
      'ENRICHED_PURCHASES',
      'SALES_TOTALS',
      'CAFFEINE_INDEX',
      'PROMOTION_FRENCH_POODLE',
      'PROMOTION_LOOSE_LEAF',
    ],
  },
  {
    file: 'ksqldb/ksql-docs/ctas__windowed-join-chart.sql',
    dialect: 'ksql',
    sources: ['PLAYSTREAM', 'SONGS'],
    sinks: ['WEEKLYMUSICCHARTS'],
  },
  {
    file: 'ksqldb/ksql-docs/etl__csas-with-topic-stream-stream-within.sql',
    dialect: 'ksql',
    sources: ['ENRICHED_ORDERS', 'SHIPMENTS'],
    sinks: ['SHIPPED_ORDERS'],
  },
  {
    file: 'ksqldb/ksql-docs/csas__views-with-comments.sql',
    dialect: 'ksql',
    sources: ['SOURCE_STREAM', 'CLICKSTREAM', 'USERS'],
    sinks: ['FILTERED', 'ENRICHED'],
  },
  {
    file: 'ksqldb/ksql-docs/ctas__hopping-retention-grace.sql',
    dialect: 'ksql',
    sources: ['PAGEVIEWS'],
    sinks: ['PAGEVIEWS_PER_REGION'],
  },
  {
    file: 'ksqldb/ksql-qtt/fk-n-way-join__should-allow-fk-join-at-start-of-n-way-join-with-aliases.sql',
    dialect: 'ksql',
    sources: ['LEFT_TABLE', 'MIDDLE_TABLE', 'RIGHT_TABLE'],
    sinks: ['OUTPUT'],
  },
  {
    file: 'ksqldb/ksql-qtt/multi-joins__stream-stream-stream-outer-outer.sql',
    dialect: 'ksql',
    sources: ['S1', 'S2', 'S3'],
    sinks: ['OUTPUT'],
  },
  {
    file: 'ksqldb/ksql-qtt/insert-into__join.sql',
    dialect: 'ksql',
    sources: ['SOURCE1', 'SOURCE2'],
    sinks: ['OUTPUT'],
  },
  {
    file: 'ksqldb/ksql-qtt/quoted-identifiers__joins-using-fields-that-require-quotes.sql',
    dialect: 'ksql',
    sources: ['L', 'R'],
    sinks: ['JOINED'],
  },
  {
    file: 'ksqldb/ksql-qtt/session-windows__out-of-order-no-grace-period.sql',
    dialect: 'ksql',
    sources: ['TEST'],
    sinks: ['S2'],
    note: 'source written `test` (unquoted, so TEST)',
  },
  {
    file: 'ksqldb/ksql-qtt/table-functions__table-functions-with-complex-expressions.sql',
    dialect: 'ksql',
    sources: ['TEST'],
    sinks: ['OUTPUT'],
  },
  {
    file: 'ksqldb/ksql-docs/case-of-identifiers__backticked-ddl-insert-values.sql',
    dialect: 'ksql',
    sources: [],
    sinks: ['s2'],
    note: 'three INSERT ... VALUES into backticked lower-case `s2`',
  },
  {
    file: 'ksqldb/shift-left-utils/geospacial.sql',
    dialect: 'ksql',
    sources: ['engineers', 'tickets'],
    sinks: ['destinations'],
    note: 'double-quoted identifiers keep their case',
  },
  {
    file: 'ksqldb/ksql-qtt/multi-joins__stream-stream-table-inner-inner-rekey-left-and-right.sql',
    dialect: 'ksql',
    sources: ['S1', 'S2', 'T3'],
    sinks: ['OUTPUT'],
  },
];
