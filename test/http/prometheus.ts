/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for the tests of
 * `GET /metrics`. prom-client ships no parser, and the npm parser we tried drops the labels, sum and
 * count of histograms, so this one follows the format's grammar and throws on any line it does not
 * recognize:
 *
 * - `# HELP name text` and `# TYPE name counter|gauge|histogram|summary|untyped`, TYPE at most once
 *   per family and before its samples;
 * - samples `name{label="value",...} value [timestamp]`, label values with `\\`, `\"` and `\n`
 *   escapes, values as Go floats (`+Inf`, `-Inf` and `NaN` in any case included);
 * - each sample belongs to a declared family (histograms: `_bucket`, `_sum`, `_count`);
 * - histograms: per series, buckets do not decrease as `le` grows, and the `+Inf` bucket equals `_count`.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its type, help text and samples. */
export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
// Go's strconv.ParseFloat, which Prometheus uses: Inf, Infinity and NaN in any case (prom-client writes `Nan`).
const VALUE =
  '[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN]|\\d+(?:\\.\\d*)?(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})?\\s+(${VALUE})(?:\\s+-?\\d+)?$`);
const LABEL_PAIR = new RegExp(`\\s*(${LABEL})="((?:[^"\\\\]|\\\\[\\\\"n])*)"\\s*(,|$)`, 'y');
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL_PAIR.lastIndex = 0;
  while (LABEL_PAIR.lastIndex < text.length) {
    const match = LABEL_PAIR.exec(text);
    if (!match) throw new Error(`line ${line}: malformed labels {${text}}`);
    const [, name, raw] = match as unknown as [string, string, string];
    if (name in labels) throw new Error(`line ${line}: label ${name} repeated`);
    labels[name] = raw.replace(/\\(["\\n])/g, (_all, escaped: string) => (escaped === 'n' ? '\n' : escaped));
  }
  return labels;
}

function parseValue(text: string): number {
  if (/^\+?inf/i.test(text)) return Infinity;
  if (/^-inf/i.test(text)) return -Infinity;
  if (/nan/i.test(text)) return NaN;
  return Number(text);
}

/** The family a sample name belongs to, given the declared families. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (family && (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))) return family;
  }
  return undefined;
}

/**
 * Parses an exposition and checks it (see the module's docstring).
 * @throws Error naming the line (from 1) and what is wrong.
 */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(raw);
      if (help) {
        helps.set(help[1]!, help[2]!);
        return;
      }
      const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(raw);
      if (type) {
        const [, name, kind] = type as unknown as [string, string, string];
        if (!TYPES.has(kind)) throw new Error(`line ${line}: unknown type ${kind}`);
        if (families.has(name)) throw new Error(`line ${line}: TYPE of ${name} given twice`);
        families.set(name, { name, type: kind as Family['type'], help: helps.get(name) ?? '', samples: [] });
        return;
      }
      return; // any other comment is allowed by the format
    }
    const match = SAMPLE.exec(raw);
    if (!match) throw new Error(`line ${line}: not a sample: ${raw}`);
    const [, name, labels, value] = match as unknown as [string, string, string | undefined, string];
    const family = familyOf(name, families);
    if (!family) throw new Error(`line ${line}: sample ${name} has no TYPE line before it`);
    family.samples.push({
      name,
      labels: labels === undefined ? {} : parseLabels(labels, line),
      value: parseValue(value),
    });
  });
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
    if (!family.help) family.help = helps.get(family.name) ?? '';
  }
  return families;
}

/** The labels of a sample as a key, without `le`. */
function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([name]) => name !== 'le')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

function checkHistogram(family: Family): void {
  const buckets = new Map<string, Array<{ le: number; value: number }>>();
  const counts = new Map<string, number>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels);
    if (sample.name.endsWith('_bucket')) {
      const le = sample.labels.le;
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      buckets.set(key, [...(buckets.get(key) ?? []), { le: parseValue(le), value: sample.value }]);
    } else if (sample.name.endsWith('_count')) counts.set(key, sample.value);
  }
  for (const [key, series] of buckets) {
    series.sort((a, b) => a.le - b.le);
    series.forEach((bucket, index) => {
      if (index > 0 && bucket.value < series[index - 1]!.value)
        throw new Error(`${family.name} ${key}: bucket le=${bucket.le} is below the one before`);
    });
    const last = series[series.length - 1];
    if (!last || last.le !== Infinity) throw new Error(`${family.name} ${key}: no +Inf bucket`);
    if (counts.get(key) !== last.value) throw new Error(`${family.name} ${key}: _count differs from the +Inf bucket`);
  }
}

/** The samples of `name` (a family or a sample name) whose labels include `labels`. */
export function samples(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = familyOf(name, families);
  if (!family) return [];
  return family.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The value of the one sample of `name` with `labels`. @throws Error when there is none or several. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const found = samples(families, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}
