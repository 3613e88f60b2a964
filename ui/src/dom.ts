/** Small DOM helpers: elements built from a tag, attributes and children (text is escaped by the DOM). */

/** A child: an element, text, or nothing. */
export type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element. `attributes` set properties for `on*` handlers (functions) and attributes
 * otherwise (`true` sets an empty attribute, `false`/undefined leaves it out).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === 'value' && 'value' in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (name === 'checked' && 'checked' in element) {
      (element as HTMLInputElement).checked = Boolean(value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children (skipping empty ones). */
export function append(parent: Element, children: Child[]) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'number' ? String(child) : child);
  }
}

/**
 * Text that may wrap after each `.`, `_`, `/` or `,` (a word break opportunity, `<wbr>`), so that
 * a long qualified name wraps between its parts instead of in the middle of a word.
 */
export function breakable(text: string): HTMLSpanElement {
  const span = document.createElement('span');
  for (const part of text.split(/(?<=[._/,])/)) span.append(part, document.createElement('wbr'));
  return span;
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]) {
  parent.replaceChildren();
  append(parent, children);
}

/** A two-column table of name/value rows (values rendered as text, objects as JSON). */
export function keyValueTable(caption: string, rows: [string, unknown][]): HTMLTableElement {
  return h(
    'table',
    { class: 'kv' },
    h('caption', {}, caption),
    h(
      'tbody',
      {},
      ...rows.map(([name, value]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, formatValue(value)))),
    ),
  );
}

/** A value as text: strings as they are, null as an em dash, anything else as compact JSON. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return value.toLocaleString('en');
  return JSON.stringify(value);
}

/** A time as local `YYYY-MM-DD HH:MM:SS`. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
