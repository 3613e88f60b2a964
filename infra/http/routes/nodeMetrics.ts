/**
 * `GET /api/v1/graphs/{graph_id}/nodes/{node_id}/metrics?since=&until=`: a node's metric series, the
 * samples recorded by extractions and enrichments with metrics (`MetricsSampled`, `src/events.ts`),
 * oldest first, as the metrics projection keeps them (`projections/metricsProjection.ts`: at most
 * `METRIC_SERIES_LIMIT` per node). One schema plus one call into `services/graphs.ts`
 * (`nodeMetricSeries`). The graph may be named by its id or its unique name.
 *
 * Errors (problem+json): 400 when `since` or `until` is not an ISO 8601 time or `since` is after
 * `until`; 404 for an unknown or deleted graph, or a node that is neither in the graph nor sampled.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { nodeMetricSeries, type GraphRuntime } from '../../../services/graphs.js';
import { problemResponses } from '../problem.js';
import { count, NodeParams } from './schemas.js';

/** Options of the node metrics route. */
export interface NodeMetricsRoutesOptions {
  runtime: GraphRuntime;
}

const TimeBound = (what: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(`ISO 8601 time (e.g. 2025-01-31T12:00:00Z): only samples whose window ends ${what} it`);

const MetricPointSchema = z.object({
  window_start: z.string().describe('ISO 8601 start of the window the values were summed over'),
  window_end: z.string().describe('ISO 8601 end of the window'),
  recorded_at: z.string().describe('ISO 8601 time the sample was recorded'),
  correlation_id: z.string().nullable().describe('The extraction or enrichment that sampled it'),
  metrics: z
    .record(z.string(), z.union([z.number().min(0), z.boolean(), z.null()]))
    .describe(
      'Values by attribute name: metrics_{received,sent}_{bytes,records} (bytes, records), metrics_records_{in,out}, ' +
        'metrics_total_lag (consumer lag, records), metrics_active; numbers are 0 or more, with no upper bound',
    ),
});

const NodeMetricSeriesSchema = z
  .object({
    graph_id: z.string(),
    node_id: z.string(),
    since: z.string().nullable(),
    until: z.string().nullable(),
    series_limit: count('Most samples kept per node; older ones are only in the event store'),
    samples: z.array(MetricPointSchema).describe('Oldest first'),
    count: count('Length of samples'),
  })
  .meta({ id: 'NodeMetricSeries' });

/** Registers the route (register with `{ prefix: '/api/v1' }`). */
export const nodeMetricsRoutes: FastifyPluginAsyncZod<NodeMetricsRoutesOptions> = async (app, { runtime }) => {
  app.get(
    '/graphs/:graph_id/nodes/:node_id/metrics',
    {
      schema: {
        tags: ['graphs'],
        summary: "A node's metric samples over time (throughput, consumer lag), oldest first",
        params: NodeParams,
        querystring: z.object({ since: TimeBound('at or after'), until: TimeBound('at or before') }),
        response: { 200: NodeMetricSeriesSchema, ...problemResponses },
      },
    },
    async (request) =>
      nodeMetricSeries(runtime, request.params.graph_id, request.params.node_id, {
        since: request.query.since,
        until: request.query.until,
      }),
  );
};
