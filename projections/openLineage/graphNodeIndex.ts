/**
 * Where the live extracted graphs hold the nodes of each key (an OpenLineage dataset identity, or a
 * job name): the part of the OpenLineage projection's state that joins its queries with the graph
 * projection (`extracted.ts`).
 *
 * Almost every key is held by one node of one graph, so a key's holders are kept as one flat array of
 * graph ids and node ids, alternately (`[graphId, nodeId, graphId, nodeId, ...]`), not as a map of
 * sets: on the 100,000-node synthetic graph the index took 54 MB of heap as maps of sets and takes a
 * fraction of that as arrays (docs/benchmarks.md, "Memory and start-up"). The strings are the ones
 * the events carry (the node ids the graph projection keys its nodes by), never copies.
 */

/** The nodes of one key: graph ids and node ids, alternately. */
type Holders = string[];

/** Nodes of the live extracted graphs by key, and the key of every indexed node. */
export class GraphNodeIndex {
  private readonly holders = new Map<string, Holders>();
  /** The key of every indexed node, by graph id and node id. */
  private readonly keys = new Map<string, Map<string, string>>();

  /** Indexes node `nodeId` of graph `graphId` under `key`, instead of the key it had (if any). */
  put(key: string, graphId: string, nodeId: string): void {
    let byNode = this.keys.get(graphId);
    if (!byNode) this.keys.set(graphId, (byNode = new Map()));
    const before = byNode.get(nodeId);
    if (before === key) return;
    if (before !== undefined) this.unlink(before, graphId, nodeId);
    byNode.set(nodeId, key);
    const holders = this.holders.get(key);
    if (!holders) {
      this.holders.set(key, [graphId, nodeId]);
      return;
    }
    // Grouped by graph, graphs in the order they first held the key: after the graph's last pair.
    let after = holders.length;
    for (let at = holders.length - 2; at >= 0; at -= 2) {
      if (holders[at] !== graphId) continue;
      after = at + 2;
      break;
    }
    holders.splice(after, 0, graphId, nodeId);
  }

  /** Removes node `nodeId` of graph `graphId` (nothing when it is not indexed). */
  remove(graphId: string, nodeId: string): void {
    const byNode = this.keys.get(graphId);
    const key = byNode?.get(nodeId);
    if (key === undefined) return;
    byNode!.delete(nodeId);
    if (byNode!.size === 0) this.keys.delete(graphId);
    this.unlink(key, graphId, nodeId);
  }

  /** Forgets every node of graph `graphId` (deleted, or created anew). */
  forgetGraph(graphId: string): void {
    const byNode = this.keys.get(graphId);
    if (!byNode) return;
    this.keys.delete(graphId);
    for (const [nodeId, key] of byNode) this.unlink(key, graphId, nodeId);
  }

  /**
   * The nodes indexed under `key`, as `[graphId, nodeId]` pairs: grouped by graph, graphs in the order
   * they first held the key, the nodes of a graph in the order they were indexed.
   */
  *nodesUnder(key: string): Generator<[string, string]> {
    const holders = this.holders.get(key);
    if (!holders) return;
    for (let at = 0; at < holders.length; at += 2) yield [holders[at]!, holders[at + 1]!];
  }

  /** Every key with at least one node, in the order keys were first indexed. */
  indexedKeys(): IterableIterator<string> {
    return this.holders.keys();
  }

  /** Removes the pair from the holders of `key` (dropping the key when none is left). */
  private unlink(key: string, graphId: string, nodeId: string): void {
    const holders = this.holders.get(key);
    if (!holders) return;
    for (let at = 0; at < holders.length; at += 2) {
      if (holders[at] !== graphId || holders[at + 1] !== nodeId) continue;
      holders.splice(at, 2);
      if (holders.length === 0) this.holders.delete(key);
      return;
    }
  }
}
