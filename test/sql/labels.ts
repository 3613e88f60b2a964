/**
 * Hand-labelled sources and sinks of corpus files (`../shared/fixtures/sql`), checked by
 * `corpus.test.ts`. Labels are ours; the statements are read from the shared folder. A label covers
 * the whole file (`statement: 'all'`): the union of the tables read by its data-flow statements
 * (INSERT, CTAS/CSAS, SELECT, statement sets; views expanded to their sources; DDL reads nothing)
 * and the union of the tables written. Names are as written with quotes removed, parts joined with
 * `.`, a part containing a dot back-quoted (`formatTableRef`); ksqlDB unquoted names upper-cased.
 */
export interface CorpusLabel {
  file: string;
  statement: 'all';
  sources: string[];
  sinks: string[];
}

const f = (file: string, sources: string[], sinks: string[]): CorpusLabel => ({
  file,
  statement: 'all',
  sources,
  sinks,
});

/** The labelled files: 38 Flink SQL and 20 ksqlDB. */
export const LABELS: CorpusLabel[] = [
  // Flink: ververica cookbook
  f('flink/ververica-flink-sql-cookbook/aggregations-and-analytics__01_group_by_window_tvf.sql', ['server_logs'], []),
  f(
    'flink/ververica-flink-sql-cookbook/aggregations-and-analytics__07_chained_windows.sql',
    ['server_logs'],
    ['avg_request_size_1m', 'avg_request_size_5m'],
  ),
  f('flink/ververica-flink-sql-cookbook/aggregations-and-analytics__08_match_recognize__b3.sql', ['subscriptions'], []),
  f('flink/ververica-flink-sql-cookbook/foundations__07_views.sql', ['server_logs'], []),
  f(
    'flink/ververica-flink-sql-cookbook/foundations__08_statement_sets.sql',
    ['server_logs'],
    ['realtime_aggregations', 'offline_datawarehouse'],
  ),
  f('flink/ververica-flink-sql-cookbook/joins__04_lookup_joins.sql', ['subscriptions', 'users'], []),
  f(
    'flink/ververica-flink-sql-cookbook/joins__05_star_schema__b1.sql',
    ['train_activities_faker'],
    ['train_activities'],
  ),
  f('flink/ververica-flink-sql-cookbook/joins__06_lateral_join.sql', ['People'], []),
  f(
    'flink/ververica-flink-sql-cookbook/other-builtin-functions__02_union-all__b1.sql',
    ['rickandmorty_visits', 'spaceagency_visits', 'hitchhiker_visits'],
    [],
  ),
  f(
    'flink/ververica-flink-sql-cookbook/other-builtin-functions__05_expanding_arrays__b3.sql',
    ['SpellsPerCharacter', 'Spells_Language'],
    [],
  ),
  // Flink: Confluent tutorials
  f('flink/confluent-tutorials/cumulating-windows__cumulate-tvf.sql', ['orders'], []),
  f(
    'flink/confluent-tutorials/gen-ai-vector-embedding__insert-paren-cte-ml-predict.sql',
    ['product-updates'],
    ['product_vector'],
  ),
  f('flink/confluent-tutorials/gen-ai-vector-search__vector-search-agg.sql', ['query_vectors', 'mongodb_products'], []),
  f('flink/confluent-tutorials/hopping-windows__hop-tvf.sql', ['temperature_readings'], []),
  f('flink/confluent-tutorials/joining-stream-stream__interval-join.sql', ['orders', 'shipments'], []),
  f('flink/confluent-tutorials/multi-joins__ccloud-temporal-rowtime.sql', ['orders', 'customers', 'products'], []),
  f('flink/confluent-tutorials/pattern-matching__match-recognize-union.sql', ['temperature_readings'], []),
  f('flink/confluent-tutorials/session-windows__session-tvf-partition-by.sql', ['clicks'], []),
  f(
    'flink/confluent-tutorials/splitting__ccloud-script.sql',
    ['acting_events'],
    ['acting_events_drama', 'acting_events_fantasy', 'acting_events_other'],
  ),
  f('flink/confluent-tutorials/windowed-top-N__window-top-n-nested.sql', ['movie_views'], []),
  f('flink/confluent-tutorials/merging__ccloud-script.sql', ['rock_songs', 'classical_songs'], ['all_songs']),
  f('flink/confluent-tutorials/array-expansion__cross-join-unnest.sql', ['traveler_locations'], []),
  // Flink: shift-left-utils (CTEs, lower case, statement sets)
  f(
    'flink/shift-left-utils/dml.c360_dim_users__insert-lowercase-cte.sql',
    ['sl_c360_src_users', 'sl_c360_dim_groups'],
    ['sl_c360_dim_users'],
  ),
  f(
    'flink/shift-left-utils/dml.c360_fct_user_per_group__lowercase-no-semicolon.sql',
    ['sl_c360_dim_users'],
    ['sl_c360_fct_user_per_group'],
  ),
  f('flink/shift-left-utils/dml.int_p1_table_1__left-join.sql', ['src_table_1', 'src_p1_table_3'], ['int_p1_table_1']),
  f('flink/shift-left-utils/dml.int_tag__three-ctes-union-all.sql', ['src_tag', 'tenant_dimension'], ['int_tag']),
  f(
    'flink/shift-left-utils/dml.p1_fct_order__cte-left-join.sql',
    ['int_p1_table_2', 'int_p1_table_1'],
    ['p1_fct_order'],
  ),
  f('flink/shift-left-utils/dml.raw_tenants__execute-statement-set-lowercase-values.sql', [], ['sl_raw_tenants']),
  // Flink: community, demo-dsp, docs
  f('flink/community/imply-news__confluent_flink.sql', ['imply-news-clicks-sr', 'imply-news-users-sr'], []),
  f(
    'flink/community/streaming-lakehouse-playground__run.sql',
    [
      'default_catalog.default_database.source_nation',
      'default_catalog.default_database.source_customer',
      'default_catalog.default_database.source_order',
      'fluss_order',
      'fluss_customer',
      'fluss_nation',
    ],
    ['fluss_nation', 'fluss_customer', 'fluss_order', 'datalake_enriched_orders'],
  ),
  f(
    'flink/confluent-demo-dsp-fraud-detection/dev__set-ctas-three-part-backticked.sql',
    ['frauddetectiondemo-environment-a73b48f1.frauddetectiondemo-cluster-a73b48f1.`gko1.FRAUD_TRANSACTION`'],
    ['flagged_transaction'],
  ),
  f(
    'flink/confluent-demo-dsp-fraud-detection/lab1__alter-create-insert-dotted-topic.sql',
    ['`fd.SAMPLE.AUTH_USER`'],
    ['auth_user'],
  ),
  f(
    'flink/confluent-demo-dsp-fraud-detection/lab2__set-ctas-columns-ctes-over-window.sql',
    ['user_transaction', 'auth_user'],
    ['flagged_user'],
  ),
  f(
    'flink/confluent-cloud-docs/statement-set__execute-statement-set-backticked-column-lists.sql',
    ['orders'],
    ['sales', 'returns'],
  ),
  f('flink/apache-flink/docs-insert__partition-overwrite-column-list.sql', ['page_view_source'], ['country_page_view']),
  f('flink/apache-flink/docs-joins__left-outer-join-lateral-table.sql', ['Orders'], []),
  f(
    'flink/confluent-cloud-docs/window-tvf__tumble-offset-positional-and-named-params.sql',
    ['examples.marketplace.orders'],
    [],
  ),
  f(
    'flink/confluent-cloud-docs/create-table__ctas-primary-key-distributed-by.sql',
    ['source_table'],
    ['my_ctas_table'],
  ),
  // ksqlDB
  f(
    'ksqldb/ksql-qtt/fk-join__should-support-non-column-reference-in-left-join-expression.sql',
    ['LEFT_TABLE', 'RIGHT_TABLE'],
    ['OUTPUT'],
  ),
  f('ksqldb/ksql-qtt/group-by__avro-schema-and-schema-id.sql', ['TEST'], ['OUTPUT']),
  f('ksqldb/ksql-qtt/headers__can-create-and-query-stream-with-headers-column.sql', ['SOURCE1'], ['OUTPUT']),
  f('ksqldb/ksql-qtt/identifiers__aliased-source.sql', ['INPUT'], ['OUTPUT']),
  f(
    'ksqldb/ksql-qtt/insert-into__protobuf-insert-query-with-schema-references.sql',
    ['SOURCE1', 'SOURCE2'],
    ['OUTPUT'],
  ),
  f('ksqldb/ksql-qtt/joins__matching-time-windowed-sr-enabled-key-format.sql', ['S1', 'S2'], ['OUTPUT']),
  f('ksqldb/ksql-qtt/multi-joins__first-join-column-in-projection.sql', ['S1', 'T2', 'T3'], ['OUTPUT']),
  f('ksqldb/ksql-qtt/multi-joins__table-table-table-table-qualified-select.sql', ['T1', 'T2', 'T3', 'T4'], ['OUTPUT']),
  f('ksqldb/ksql-qtt/select-struct-all__value-struct-colum.sql', ['INPUT'], ['OUTPUT_1', 'OUTPUT_2', 'OUTPUT_3']),
  f(
    'ksqldb/ksql-qtt/suppress__should-emit-final-result-immediately-at-window-end-if-grace-is-specifi.sql',
    ['INPUT'],
    ['OUTPUT'],
  ),
  f(
    'ksqldb/ksql-qtt/table-table-join__table-table-key-join-with-avro-schema-and-schema-id.sql',
    ['LEFT_TABLE', 'RIGHT_TABLE'],
    ['OUTPUT'],
  ),
  f('ksqldb/confluent-demo-scene/ksql-troubleshooting__demo.sql', ['RATINGS'], ['GOOD_IOS_RATINGS']),
  f('ksqldb/ksql-docs/ctas__tumbling-grace-topk.sql', ['ORDERS'], ['TOP_ORDERS']),
  f('ksqldb/ksql-docs/etl__csas-left-join-table.sql', ['ORDERS', 'CUSTOMERS_BY_KEY'], ['ENRICHED_ORDERS']),
  f('ksqldb/ksql-docs/etl__sink-connector.sql', [], []),
  f('ksqldb/ksql-docs/joins__stream-table-pageviews.sql', ['PAGEVIEWS', 'USERS'], ['PAGEVIEWS_ENRICHED']),
  f('ksqldb/ksql-docs/update-query__terminate-drop-recreate.sql', ['VALID_PURCHASES'], ['PURCHASE_STATS']),
  f('ksqldb/shift-left-utils/aggregation.sql', ['daily-spend'], ['orders']),
  f('ksqldb/shift-left-utils/filtering.sql', ['orders'], ['filtered-orders']),
  f('ksqldb/shift-left-utils/splitter.sql', ['multi_message_stream'], ['single_message_stream']),
];
