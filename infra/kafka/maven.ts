/**
 * Java programs the project runs (the Apache Kafka broker of the tests and benchmarks, the
 * OpenLineage Java client of the interoperability tests) come from Maven Central through Maven
 * itself: each has a small `pom.xml` in the repository, and `mvn dependency:copy-dependencies`
 * copies its run-time jars into a cache folder outside the repository, once
 * (`~/.cache/lineage-svc/{pom folder}-{hash of the pom}/`, or under `XDG_CACHE_HOME`, or
 * `LINEAGE_SVC_JAVA_CACHE`): a changed pom is fetched anew. Nothing depends on a jar installed by hand.
 *
 * Run as a program with pom paths as arguments (`make test` does, before the tests), it fetches them.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The folder holding every cached classpath: `LINEAGE_SVC_JAVA_CACHE`, else `{XDG_CACHE_HOME or ~/.cache}/lineage-svc`. */
export function javaCacheRoot(): string {
  if (process.env.LINEAGE_SVC_JAVA_CACHE) return process.env.LINEAGE_SVC_JAVA_CACHE;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lineage-svc');
}

/** Why Java programs cannot run here (`java` or `mvn` missing from PATH), or false when both answer. */
export async function javaToolsMissing(): Promise<string | false> {
  const missing: string[] = [];
  for (const [tool, flag] of [
    ['java', '-version'],
    ['mvn', '--version'],
  ] as const) {
    try {
      await run(tool, [flag], { timeout: 60_000 });
    } catch {
      missing.push(tool);
    }
  }
  return missing.length === 0 ? false : `${missing.join(' and ')} not found on PATH (Java 17+ and Maven 3 are needed)`;
}

/** The cache folder name of a pom: its folder's name and the first 12 hex digits of the SHA-256 of its content. */
export function classpathName(pom: string): string {
  const digest = createHash('sha256').update(readFileSync(pom)).digest('hex').slice(0, 12);
  return `${basename(dirname(resolve(pom)))}-${digest}`;
}

/**
 * The run-time jars of `pom` (absolute paths), copied into `{javaCacheRoot()}/{name}/` by
 * `mvn -q -B dependency:copy-dependencies -DincludeScope=runtime` the first time (a completed copy is
 * marked by a `.complete` file, so an interrupted one is done again; concurrent callers each copy
 * into a folder of their own and the first rename wins).
 * @param pom path of the pom.xml listing the dependencies
 * @throws Error with Maven's output when the copy fails (no network, unknown artifact)
 */
export async function mavenClasspath(pom: string): Promise<string[]> {
  const folder = join(javaCacheRoot(), classpathName(pom));
  if (!existsSync(join(folder, '.complete'))) {
    mkdirSync(javaCacheRoot(), { recursive: true });
    const partial = `${folder}.partial-${process.pid}-${Date.now()}`;
    try {
      await run(
        'mvn',
        [
          '-q',
          '-B',
          '-f',
          pom,
          'dependency:copy-dependencies',
          `-DoutputDirectory=${partial}`,
          '-DincludeScope=runtime',
        ],
        { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
      );
      writeFileSync(join(partial, '.complete'), new Date().toISOString());
      if (!existsSync(join(folder, '.complete'))) {
        rmSync(folder, { recursive: true, force: true });
        try {
          renameSync(partial, folder);
        } catch (error) {
          // Another process renamed its copy first: use that one.
          if (!existsSync(join(folder, '.complete'))) throw error;
        }
      }
    } catch (error) {
      const output = error as { stdout?: string; stderr?: string; message?: string };
      throw new Error(
        `Maven could not copy the jars of ${pom}: ${[output.stdout, output.stderr].join('\n').trim() || output.message}`,
      );
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return readdirSync(folder)
    .filter((file) => file.endsWith('.jar'))
    .sort()
    .map((file) => join(folder, file));
}

/** Fetches the jars of every pom named on the command line; exit 2 with Maven's message on a failure. */
async function main(poms: string[]): Promise<number> {
  for (const pom of poms) {
    try {
      const jars = await mavenClasspath(pom);
      console.log(`${pom}: ${jars.length} jars in ${join(javaCacheRoot(), classpathName(pom))}`);
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      return 2;
    }
  }
  return 0;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.exitCode = await main(process.argv.slice(2));
