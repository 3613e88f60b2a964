/**
 * Validates events against the official OpenLineage JSON Schemas kept with the recorded payloads
 * beside the checkout, when present (the `spec` folder below `FIXTURES` of `./helpers.ts`), with ajv (draft 2020-12, formats on): the 2-0-2 core schema
 * for the event, each standard facet's own schema for the facets of that name, our custom facets
 * against their published schemas (`docs/facets/`), and any other facet against the core `BaseFacet`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { FIXTURES } from './helpers.js';

/** Our custom facets' published schemas. */
const CUSTOM_FACET_FOLDER = path.join(import.meta.dirname, '..', '..', 'docs', 'facets');

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

export interface OpenLineageValidator {
  /** Every error found in one event: core schema errors and facet schema errors, as `where: message`. */
  errors(event: unknown): string[];
}

/** Loads the core schema and every facet schema (registered by `$id`). */
export function loadValidator(): OpenLineageValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const spec = path.join(FIXTURES, 'spec');
  const core = JSON.parse(readFileSync(path.join(spec, 'OpenLineage.json'), 'utf8')) as { $id: string };
  ajv.addSchema(core);
  const facetValidators = new Map<string, ValidateFunction>();
  const facetFiles = [
    ...readdirSync(path.join(spec, 'facets')).map((file) => path.join(spec, 'facets', file)),
    ...readdirSync(CUSTOM_FACET_FOLDER).map((file) => path.join(CUSTOM_FACET_FOLDER, file)),
  ];
  for (const filePath of facetFiles) {
    const file = path.basename(filePath);
    const schema = JSON.parse(readFileSync(filePath, 'utf8')) as { $id: string; properties?: Record<string, unknown> };
    ajv.addSchema(schema);
    for (const key of Object.keys(schema.properties ?? {})) {
      // Several files define the same key (documentation for datasets and jobs): keep them all by file.
      facetValidators.set(`${file}:${key}`, ajv.getSchema(schema.$id)!);
    }
  }
  const validateCore = ajv.getSchema(core.$id)!;
  const validateBase = ajv.compile({ $ref: `${core.$id}#/$defs/BaseFacet` });
  const facetFile = (entity: 'dataset' | 'job' | 'run', key: string): string | null => {
    const candidates = [...facetValidators.keys()].filter((name) => name.endsWith(`:${key}`));
    const wanted = candidates.find((name) => name.toLowerCase().includes(`${entity}facet`)) ?? candidates[0];
    return wanted ?? null;
  };
  const format = (validate: ValidateFunction) =>
    (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);

  return {
    errors(event) {
      const found: string[] = [];
      if (!validateCore(event)) found.push(...format(validateCore).map((message) => `core: ${message}`));
      const record = event as Record<string, any>;
      const check = (entity: 'dataset' | 'job' | 'run', where: string, facets: unknown) => {
        if (typeof facets !== 'object' || facets === null) return;
        for (const [key, value] of Object.entries(facets)) {
          const file = facetFile(entity, key);
          const validate = file ? facetValidators.get(file)! : validateBase;
          const ok = file ? validate({ [key]: value }) : validate(value);
          if (!ok) found.push(...format(validate).map((message) => `${where}.${key}: ${message}`));
        }
      };
      check('run', 'run.facets', record.run?.facets);
      check('job', 'job.facets', record.job?.facets);
      for (const side of ['inputs', 'outputs'] as const) {
        (record[side] ?? []).forEach((dataset: any, at: number) =>
          check('dataset', `${side}.${at}.facets`, dataset?.facets),
        );
      }
      return found;
    },
  };
}
