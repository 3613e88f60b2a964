/**
 * The warehouse simulator's Data Lineage link search (`docs/catalog-apis.md` B3), over the scenario's
 * `links` and `processes`, with the shapes of the API's discovery document
 * (`GoogleCloudDatacatalogLineageV1SearchLinksResponse`, `...BatchSearchLinkProcessesResponse`,
 * `...Process`):
 *
 * - `warehouse.lineage.searchLinks`: `POST /v1/projects/{p}/locations/{l}:searchLinks` with exactly one
 *   of `source`, `target` (`{fullyQualifiedName}`), `sources`, `targets` (`{entities: [...]}`);
 *   `pageSize` (default 10, at most 100) and `pageToken` -> `{links: [{name, source, target,
 *   startTime, endTime}], nextPageToken}` (empty fields left out, as proto3 JSON does);
 * - `warehouse.lineage.batchSearchLinkProcesses`: `POST ...:batchSearchLinkProcesses` with `links`
 *   (1 to 100 link names), `pageSize` (default 10, at most 100), `pageToken` ->
 *   `{processLinks: [{process, links: [{link, startTime, endTime}]}], nextPageToken}`;
 * - `warehouse.lineage.processes.get`: `GET /v1/projects/{p}/locations/{l}/processes/{id}` ->
 *   `{name, displayName, attributes, origin: {sourceType, name}}`.
 *
 * Links with the same source, target and location are one link (named
 * `projects/{number}/locations/{l}/links/{hash}`) created by every process listed for them. Page
 * tokens are opaque and bound to the request they continue (another request's token is 400).
 */
import { createHash } from 'node:crypto';
import type { BearerApiHarness } from '../shared/bearerApiHarness.js';
import type { GoogleScenario } from './scenario.js';

/** An error the simulator's error handler renders in Google's envelope. */
export type LineageErrorFactory = (status: number, googleStatus: string, message: string) => Error;

/** One link as served, with the processes that created it. */
interface ServedLink {
  name: string;
  location: string;
  source: string;
  target: string;
  startTime: string;
  endTime: string;
  processes: string[];
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** The links of the scenario, merged by source, target and location. */
function servedLinks(scenario: GoogleScenario): ServedLink[] {
  const links = new Map<string, ServedLink>();
  const parent = (location: string) => `projects/${scenario.project_number}/locations/${location}`;
  for (const link of scenario.links) {
    const location = link.location ?? scenario.locations[0] ?? 'us';
    const key = `${location}\n${link.source}\n${link.target}`;
    const served = links.get(key) ?? {
      name: `${parent(location)}/links/${hashOf(key)}`,
      location,
      source: link.source,
      target: link.target,
      startTime: link.start_time,
      endTime: link.end_time,
      processes: [],
    };
    const process = link.process === undefined ? undefined : `${parent(location)}/processes/${link.process}`;
    if (process && !served.processes.includes(process)) served.processes.push(process);
    links.set(key, served);
  }
  return [...links.values()];
}

/** A page of `items` from a request's page token and size (default 10, at most 100). */
function page<T>(
  items: readonly T[],
  body: { pageSize?: unknown; pageToken?: unknown },
  requestKey: string,
  error: LineageErrorFactory,
): { items: T[]; nextPageToken?: string } {
  const size = body.pageSize === undefined ? 10 : Number(body.pageSize);
  if (!Number.isInteger(size) || size < 0) throw error(400, 'INVALID_ARGUMENT', 'page_size must not be negative.');
  const pageSize = Math.min(size === 0 ? 10 : size, 100);
  let offset = 0;
  if (typeof body.pageToken === 'string' && body.pageToken !== '') {
    try {
      const token = JSON.parse(Buffer.from(body.pageToken, 'base64url').toString('utf8')) as {
        o?: unknown;
        q?: unknown;
      };
      if (token.q !== hashOf(requestKey) || !Number.isInteger(token.o)) throw new Error('other request');
      offset = token.o as number;
    } catch {
      throw error(400, 'INVALID_ARGUMENT', 'The page token is invalid or belongs to another request.');
    }
  }
  const next = offset + pageSize;
  const nextPageToken =
    next < items.length
      ? Buffer.from(JSON.stringify({ o: next, q: hashOf(requestKey) })).toString('base64url')
      : undefined;
  return { items: items.slice(offset, next), ...(nextPageToken ? { nextPageToken } : {}) };
}

/** The FQNs of a search's one side: `{fullyQualifiedName}` or `{entities: [{fullyQualifiedName}]}`. */
function fqnsOf(reference: unknown, multiple: boolean, error: LineageErrorFactory): string[] {
  const entities = multiple ? (reference as { entities?: unknown })?.entities : [reference];
  if (!Array.isArray(entities) || entities.length === 0)
    throw error(400, 'INVALID_ARGUMENT', 'At least one entity must be given.');
  return entities.map((entity) => {
    const fqn = (entity as { fullyQualifiedName?: unknown })?.fullyQualifiedName;
    if (typeof fqn !== 'string' || fqn === '')
      throw error(400, 'INVALID_ARGUMENT', 'EntityReference.fully_qualified_name is required.');
    return fqn;
  });
}

/** Answers 403 for a project other than the scenario's (by id or number). */
function checkProject(scenario: GoogleScenario, project: string, location: string, error: LineageErrorFactory): void {
  if (project !== scenario.project_id && project !== String(scenario.project_number))
    throw error(
      403,
      'PERMISSION_DENIED',
      `Permission 'datalineage.events.get' denied on resource '//datalineage.googleapis.com/projects/${project}/locations/${location}' (or it may not exist).`,
    );
}

/** `searchLinks`: the links from (or to) the entities asked, in the location, one page at a time. */
function searchLinks(
  scenario: GoogleScenario,
  links: readonly ServedLink[],
  route: BearerApiHarness['route'],
  error: LineageErrorFactory,
): void {
  route(
    'POST',
    '/v1/projects/:project/locations/:location(^[^:/]+)::searchLinks',
    'warehouse.lineage.searchLinks',
    (request) => {
      const { project, location } = request.params as { project: string; location: string };
      checkProject(scenario, project, location, error);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const given = (['source', 'target', 'sources', 'targets'] as const).filter((field) => body[field] !== undefined);
      if (given.length !== 1)
        throw error(400, 'INVALID_ARGUMENT', 'Exactly one of source, target, sources or targets must be set.');
      const field = given[0]!;
      const wanted = new Set(fqnsOf(body[field], field.endsWith('s'), error));
      const side = field.startsWith('source') ? 'source' : 'target';
      const matching = links.filter((link) => link.location === location && wanted.has(link[side]));
      const requestKey = JSON.stringify([project, location, field, [...wanted].sort()]);
      const { items, nextPageToken } = page(matching, body, requestKey, error);
      const answer: Record<string, unknown> = {};
      if (items.length > 0)
        answer.links = items.map((link) => ({
          name: link.name,
          source: { fullyQualifiedName: link.source },
          target: { fullyQualifiedName: link.target },
          startTime: link.startTime,
          endTime: link.endTime,
        }));
      if (nextPageToken) answer.nextPageToken = nextPageToken;
      return answer;
    },
  );
}

/** `batchSearchLinkProcesses`: the processes that created the links asked, each with those of its links. */
function batchSearchLinkProcesses(
  scenario: GoogleScenario,
  links: readonly ServedLink[],
  route: BearerApiHarness['route'],
  error: LineageErrorFactory,
): void {
  route(
    'POST',
    '/v1/projects/:project/locations/:location(^[^:/]+)::batchSearchLinkProcesses',
    'warehouse.lineage.batchSearchLinkProcesses',
    (request) => {
      const { project, location } = request.params as { project: string; location: string };
      checkProject(scenario, project, location, error);
      const body = (request.body ?? {}) as { links?: unknown; pageSize?: unknown; pageToken?: unknown };
      if (!Array.isArray(body.links) || body.links.length === 0 || body.links.some((name) => typeof name !== 'string'))
        throw error(400, 'INVALID_ARGUMENT', 'links must name at least one link.');
      if (body.links.length > 100) throw error(400, 'INVALID_ARGUMENT', 'At most 100 links may be given.');
      const asked = new Set(body.links as string[]);
      const byProcess = new Map<string, ServedLink[]>();
      for (const link of links)
        if (asked.has(link.name))
          for (const process of link.processes) byProcess.set(process, [...(byProcess.get(process) ?? []), link]);
      const processLinks = [...byProcess.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([process, created]) => ({
          process,
          links: created.map((link) => ({ link: link.name, startTime: link.startTime, endTime: link.endTime })),
        }));
      const requestKey = JSON.stringify([project, location, [...asked].sort()]);
      const { items, nextPageToken } = page(processLinks, body, requestKey, error);
      return { ...(items.length > 0 ? { processLinks: items } : {}), ...(nextPageToken ? { nextPageToken } : {}) };
    },
  );
}

/** Registers the link search routes (see the module comment) on the simulator's harness. */
export function lineageLinkRoutes(
  route: BearerApiHarness['route'],
  scenario: GoogleScenario,
  error: LineageErrorFactory,
): void {
  const links = servedLinks(scenario);
  searchLinks(scenario, links, route, error);
  batchSearchLinkProcesses(scenario, links, route, error);
  const processes = new Map(scenario.processes.map((process) => [process.id, process]));
  route(
    'GET',
    '/v1/projects/:project/locations/:location/processes/:id',
    'warehouse.lineage.processes.get',
    (request) => {
      const { project, location, id } = request.params as { project: string; location: string; id: string };
      checkProject(scenario, project, location, error);
      const process = processes.get(id);
      if (!process) throw error(404, 'NOT_FOUND', `Process ${id} not found.`);
      return {
        name: `projects/${scenario.project_number}/locations/${location}/processes/${id}`,
        ...(process.display_name === undefined ? {} : { displayName: process.display_name }),
        ...(Object.keys(process.attributes).length === 0 ? {} : { attributes: process.attributes }),
        origin: {
          sourceType: process.source_type,
          ...(process.origin_name === undefined ? {} : { name: process.origin_name }),
        },
      };
    },
  );
}
