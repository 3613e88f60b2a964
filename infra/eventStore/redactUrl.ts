/**
 * A connection string (`LINEAGE_SVC_STORAGE__URL`) fit to print: its password replaced by `***`
 * (`postgres://user:***@host/db`), or `(an unparseable connection URL)` when it is not a URL. Used
 * by the messages of the postgres and eventstoredb stores, and by the first line commands print.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparseable connection URL)';
  }
}
