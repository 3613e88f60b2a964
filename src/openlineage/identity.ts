/**
 * Dataset identity for OpenLineage.
 *
 * A dataset is identified by `(namespace, name)`, compared verbatim (OpenLineage naming conventions,
 * https://openlineage.io/docs/spec/naming). Two mechanisms join identities into one dataset:
 *
 * 1. `symlinks` facets: every `identifiers[]` entry is the same dataset as the dataset carrying it
 *    (Spark: path + `TABLE` symlink; Hive: table + `LOCATION` symlink). Joins are kept in a
 *    union-find, so they are transitive and order-independent.
 * 2. Namespace aliases: a Kafka namespace `kafka://{bootstrap host}:{port}` (what Spark and Flink
 *    send) is the same cluster as our `stream://{env}/{cluster}` when that cluster's bootstrap
 *    endpoint is known from extraction. Every dataset of one namespace is then joined with the
 *    dataset of the same name in the other.
 *
 * Where the bootstrap endpoint comes from: node attribute `bootstrap_endpoint` (`host:port`, no
 * scheme) on TOPIC nodes (or any stream node). `kafka_bootstrap_endpoint` (the platform's field name,
 * `SASL_SSL://host:port`) is read too. Extraction knows it per cluster (`ClusterInfo.bootstrapEndpoint`
 * in `src/extraction/environments.ts`); callers may also pass a map cluster id -> `host:port`.
 */
import type { Node } from '../graph/model.js';

/** Separator of namespace and name inside a dataset key (neither contains a NUL). */
const SEP = '\u0000';

/** The key of a dataset identity: namespace and name joined unambiguously. */
export function datasetKey(namespace: string, name: string): string {
  return `${namespace}${SEP}${name}`;
}

/** Splits a `datasetKey` back into namespace and name. */
export function splitDatasetKey(key: string): { namespace: string; name: string } {
  const at = key.indexOf(SEP);
  return { namespace: key.slice(0, at), name: key.slice(at + 1) };
}

/** Node attribute names that carry a Kafka bootstrap endpoint, in order of preference. */
export const BOOTSTRAP_ATTRIBUTES = ['bootstrap_endpoint', 'kafka_bootstrap_endpoint'] as const;

/**
 * Normalizes a bootstrap endpoint or Kafka namespace to `host:port` (lower-case host): drops a
 * `kafka://` or `SASL_SSL://`-style scheme, keeps the first server of a comma or semicolon list
 * (as the Spark and Flink integrations do), and adds port 9092 when none is given.
 * Returns null for an empty value.
 */
export function normalizeBootstrap(value: string): string | null {
  const first = value.trim().split(/[,;]/)[0]?.trim() ?? '';
  const withoutScheme = first.replace(/^[A-Za-z][A-Za-z0-9_+.-]*:\/\//, '').replace(/\/.*$/, '');
  if (withoutScheme === '') return null;
  const hasPort = /:\d+$/.test(withoutScheme);
  return (hasPort ? withoutScheme : `${withoutScheme}:9092`).toLowerCase();
}

/** The OpenLineage namespace of a Kafka cluster: `kafka://{host}:{port}`. */
export function kafkaNamespace(bootstrap: string): string | null {
  const normalized = normalizeBootstrap(bootstrap);
  return normalized === null ? null : `kafka://${normalized}`;
}

/** Our namespace of a stream cluster: `stream://{env}/{cluster}`. */
export function streamNamespace(environmentId: string | null, clusterId: string | null): string {
  return clusterId ? `stream://${environmentId ?? 'unknown'}/${clusterId}` : `stream://${environmentId ?? 'unknown'}`;
}

/** The bootstrap endpoint a node carries (`host:port`), or null. */
export function nodeBootstrap(node: Pick<Node, 'attributes'>): string | null {
  for (const key of BOOTSTRAP_ATTRIBUTES) {
    const value = node.attributes?.[key];
    if (typeof value === 'string' && value.trim() !== '') return normalizeBootstrap(value);
  }
  return null;
}

/**
 * Namespace aliases learned from a graph: `kafka://{host}:{port}` -> `stream://{env}/{cluster}` for
 * every stream node with a cluster id and a bootstrap endpoint (attribute, or `bootstrapByCluster`).
 */
export function kafkaAliasesFromNodes(
  nodes: Iterable<Node>,
  bootstrapByCluster?: ReadonlyMap<string, string>,
): Map<string, string> {
  const aliases = new Map<string, string>();
  const seenClusters = new Set<string>();
  for (const node of nodes) {
    if (node.system !== 'STREAM' || !node.cluster_id) continue;
    const bootstrap = nodeBootstrap(node);
    if (bootstrap !== null) aliases.set(`kafka://${bootstrap}`, streamNamespace(node.environment_id, node.cluster_id));
    seenClusters.add(`${node.environment_id ?? ''}\u0000${node.cluster_id}`);
  }
  if (bootstrapByCluster) {
    for (const pair of seenClusters) {
      const [env, cluster] = pair.split('\u0000') as [string, string];
      const bootstrap = bootstrapByCluster.get(cluster);
      const namespace = bootstrap === undefined ? null : kafkaNamespace(bootstrap);
      if (namespace !== null && !aliases.has(namespace)) aliases.set(namespace, streamNamespace(env || null, cluster));
    }
  }
  return aliases;
}

/**
 * Union-find over dataset keys, with the member list of every class and namespace aliases.
 *
 * `union(a, b)` joins two identities; `alias(nsA, nsB)` makes every `(nsA, x)` the same dataset as
 * `(nsB, x)`, including datasets added later with `add`. `find(key)` gives the class representative
 * (stable only until the next union), `members(key)` every key of the class.
 */
export class DatasetIdentities {
  private readonly parent = new Map<string, string>();
  /** The members of each class of more than one key, by root (a key alone is its own class: not stored). */
  private readonly classMembers = new Map<string, string[]>();
  private readonly namesByNamespace = new Map<string, Set<string>>();
  private readonly aliasesOf = new Map<string, Set<string>>();
  private joined = 0;

  /**
   * How many times the classes changed (two classes joined by `union`, or all forgotten by `clear`):
   * a read model derived from the classes (the Marquez lineage index) is stale once it changed.
   */
  get unionCount(): number {
    return this.joined;
  }

  /** Registers an identity (no-op when known); joins it with its namespace aliases. */
  add(namespace: string, name: string): string {
    const key = datasetKey(namespace, name);
    if (this.parent.has(key)) return key;
    this.parent.set(key, key);
    let names = this.namesByNamespace.get(namespace);
    if (!names) this.namesByNamespace.set(namespace, (names = new Set()));
    names.add(name);
    const aliases = this.aliasesOf.get(namespace);
    if (aliases) for (const other of aliases) this.union(key, this.add(other, name));
    return key;
  }

  /** True when the identity was registered. */
  has(key: string): boolean {
    return this.parent.has(key);
  }

  /** The representative of `key`'s class (`key` itself when unknown). */
  find(key: string): string {
    let root = key;
    let next = this.parent.get(root);
    if (next === undefined) return key;
    while (next !== root) {
      root = next;
      next = this.parent.get(root)!;
    }
    // Path compression.
    let at = key;
    while (at !== root) {
      const up = this.parent.get(at)!;
      this.parent.set(at, root);
      at = up;
    }
    return root;
  }

  /** Joins the classes of two keys (both registered with `add` first). Returns the new root. */
  union(a: string, b: string): string {
    const rootA = this.find(a);
    const rootB = this.find(b);
    if (rootA === rootB) return rootA;
    this.joined += 1;
    const membersA = this.classMembers.get(rootA) ?? [rootA];
    const membersB = this.classMembers.get(rootB) ?? [rootB];
    // Small into large; ties keep the lexicographically smaller root, so the result is order-independent.
    const [big, small, bigRoot, smallRoot] =
      membersA.length > membersB.length || (membersA.length === membersB.length && rootA < rootB)
        ? [membersA, membersB, rootA, rootB]
        : [membersB, membersA, rootB, rootA];
    for (const member of small) big.push(member);
    this.parent.set(smallRoot, bigRoot);
    this.classMembers.delete(smallRoot);
    this.classMembers.set(bigRoot, big);
    return bigRoot;
  }

  /** Every key in `key`'s class (just `[key]` when unknown). */
  members(key: string): readonly string[] {
    return this.classMembers.get(this.find(key)) ?? [key];
  }

  /** Declares two namespaces the same (e.g. `kafka://b1:9092` and `stream://env/lkc-1`). */
  alias(namespaceA: string, namespaceB: string): void {
    if (namespaceA === namespaceB) return;
    const link = (from: string, to: string) => {
      let set = this.aliasesOf.get(from);
      if (!set) this.aliasesOf.set(from, (set = new Set()));
      if (set.has(to)) return false;
      set.add(to);
      return true;
    };
    const added = link(namespaceA, namespaceB);
    link(namespaceB, namespaceA);
    if (!added) return;
    for (const [from, to] of [
      [namespaceA, namespaceB],
      [namespaceB, namespaceA],
    ] as const) {
      for (const name of [...(this.namesByNamespace.get(from) ?? [])])
        this.union(datasetKey(from, name), this.add(to, name));
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.joined += 1;
    this.parent.clear();
    this.classMembers.clear();
    this.namesByNamespace.clear();
    this.aliasesOf.clear();
  }
}

/** The `symlinks` identifiers of a dataset's facets, ignoring malformed entries. */
export function symlinkIdentifiers(facets: unknown): Array<{ namespace: string; name: string; type: string | null }> {
  if (typeof facets !== 'object' || facets === null) return [];
  const symlinks = (facets as Record<string, unknown>).symlinks;
  if (typeof symlinks !== 'object' || symlinks === null) return [];
  const identifiers = (symlinks as Record<string, unknown>).identifiers;
  if (!Array.isArray(identifiers)) return [];
  const out: Array<{ namespace: string; name: string; type: string | null }> = [];
  for (const entry of identifiers) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { namespace, name, type } = entry as Record<string, unknown>;
    if (typeof namespace === 'string' && namespace !== '' && typeof name === 'string' && name !== '') {
      out.push({ namespace, name, type: typeof type === 'string' ? type : null });
    }
  }
  return out;
}
