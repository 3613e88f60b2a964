/**
 * Reading a large JSON list answer (`{..., "data": [item, ...], ...}`) without holding it whole.
 *
 * `JSON.parse` of a whole answer holds its text and every parsed item at once, and a `JSON.parse`
 * reviver runs only once the whole tree is built, so it does not lower that peak. Kafka REST's
 * `topics/-/configs` answers 30 rows per topic (6.5 MB per 400-topic cluster), of which the topic
 * nodes keep about one in six; parsed whole, those answers made most of an extraction's peak
 * memory on the 2,000-topic estate of issue 16 (docs/benchmarks.md, "Extraction memory").
 *
 * `JsonListScanner` reads the answer's text chunk by chunk. It only finds where each item of the
 * list begins and ends (tracking strings, escapes and bracket depth; `indexOf` jumps to the end of
 * each string, the few characters between strings are looked at one by one), and hands each item's
 * text to `JSON.parse` on its own: parsing stays native, and only the envelope, one item and the kept
 * items are held. On a 5.4 MB `topics/-/configs` answer in 64 KB chunks it takes 2 to 3 times
 * `JSON.parse` of the whole text (with a regular expression per character that matters: 3.5 times).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const SPACE = 0x20;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Whether a character matters outside strings: `"`, `{`, `}`, `[`, `]` or `,`. */
function isStructural(code: number): boolean {
  return (
    code === QUOTE ||
    code === OPEN_BRACE ||
    code === CLOSE_BRACE ||
    code === OPEN_BRACKET ||
    code === CLOSE_BRACKET ||
    code === COMMA
  );
}

/**
 * Scans the text of a JSON object whose member `key` (at the top level) is a list, chunk by chunk
 * (`push`), keeping the items that `keep` accepts; `end` answers the object with only those items
 * in `key`. Chunks may split the text anywhere (inside strings and escapes too).
 */
export class JsonListScanner {
  readonly #keep: (item: unknown) => boolean;
  readonly #key: string;
  /** The end of the envelope's text just before the list's `[`: `"key":`. */
  readonly #listKey: RegExp;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The depth of the list's items once the list is open; -1 before and after it. */
  #listDepth = -1;
  #listSeen = false;
  /** The text outside the list's items. */
  #envelope: string[] = [];
  /** The text of the item being read; undefined between items. */
  #item: string[] | undefined;
  /** Whether the item being read is a scalar (it ends at `,` or `]`, not at its closing bracket). */
  #itemIsScalar = false;
  readonly #items: unknown[] = [];

  /**
   * @param key the top-level member holding the list (e.g. `data`).
   * @param keep whether an item, once parsed, is kept.
   */
  constructor(key: string, keep: (item: unknown) => boolean) {
    this.#keep = keep;
    this.#key = key;
    this.#listKey = new RegExp(`"${key.replace(/[^\w]/g, '\\$&')}"\\s*:\\s*$`);
  }

  /** Reads the next chunk of text. @throws SyntaxError when an item is not JSON. */
  push(chunk: string): void {
    let from = 0;
    let at = 0;
    const length = chunk.length;
    scanning: while (at < length) {
      if (this.#inString) {
        at = this.#skipInString(chunk, at);
        continue;
      }
      if (this.#listDepth >= 0 && this.#depth === this.#listDepth && this.#item === undefined) {
        const code = chunk.charCodeAt(at);
        if (code === COMMA || code <= SPACE) {
          at += 1;
          from = at;
          continue;
        }
        if (code !== CLOSE_BRACKET) {
          this.#item = [];
          this.#itemIsScalar = code !== OPEN_BRACE && code !== OPEN_BRACKET;
          from = at;
        }
      }
      // To the next character that matters outside strings (few characters lie between them in JSON).
      let code = chunk.charCodeAt(at);
      while (!isStructural(code)) {
        at += 1;
        if (at === length) break scanning;
        code = chunk.charCodeAt(at);
      }
      if (code === QUOTE) {
        this.#inString = true;
        at += 1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        this.#depth += 1;
        at += 1;
        if (code === OPEN_BRACKET && this.#opensList(chunk.slice(from, at - 1))) {
          this.#envelope.push(chunk.slice(from, at));
          this.#listDepth = this.#depth;
          from = at;
        }
      } else {
        from = this.#structure(chunk, from, at, code);
        at += 1;
      }
    }
    if (this.#item !== undefined) this.#item.push(chunk.slice(from));
    else if (!(this.#listDepth >= 0 && this.#depth === this.#listDepth)) this.#envelope.push(chunk.slice(from));
  }

  /**
   * The object, with the kept items in its list (in their order).
   * @throws SyntaxError when the text is not a complete JSON object with that list.
   */
  end(): unknown {
    if (this.#depth !== 0 || this.#inString || this.#item !== undefined)
      throw new SyntaxError('the JSON answer ended early');
    const text = this.#envelope.join('');
    if (text.trim() === '') return null;
    const value = JSON.parse(text) as unknown;
    if (this.#listSeen) (value as Record<string, unknown>)[this.#key] = this.#items;
    return value;
  }

  /**
   * Past a string's characters from `at`; answers where to go on. A quote ends the string unless an
   * odd number of backslashes precede it; a chunk that ends on an odd run of backslashes leaves the
   * next chunk's first character escaped (`#escaped`).
   */
  #skipInString(chunk: string, at: number): number {
    if (this.#escaped) {
      this.#escaped = false;
      at += 1;
    }
    const start = at;
    for (;;) {
      const quote = chunk.indexOf('"', at);
      const stop = quote === -1 ? chunk.length : quote;
      let backslashes = 0;
      while (stop - backslashes - 1 >= start && chunk.charCodeAt(stop - backslashes - 1) === BACKSLASH)
        backslashes += 1;
      if (quote === -1) {
        this.#escaped = backslashes % 2 === 1;
        return chunk.length;
      }
      if (backslashes % 2 === 0) {
        this.#inString = false;
        return quote + 1;
      }
      at = quote + 1;
    }
  }

  /** Whether a `[` at the current depth, preceded by `before` in this chunk, opens the list. */
  #opensList(before: string): boolean {
    if (this.#listSeen || this.#depth !== 2 || this.#item !== undefined) return false;
    const tail = this.#envelope.join('').slice(-256) + before;
    if (!this.#listKey.test(tail)) return false;
    this.#listSeen = true;
    return true;
  }

  /** A `}`, `]` or `,` at `at`: closes items and the list. Answers the new start of unsaved text. */
  #structure(chunk: string, from: number, at: number, code: number): number {
    const atListDepth = this.#listDepth >= 0 && this.#depth === this.#listDepth;
    if (this.#item !== undefined && this.#itemIsScalar && atListDepth) {
      this.#finishItem(chunk.slice(from, at));
      from = code === COMMA ? at + 1 : at;
    }
    if (code === COMMA) return from;
    this.#depth -= 1;
    if (this.#item !== undefined && !this.#itemIsScalar && this.#depth === this.#listDepth) {
      this.#finishItem(chunk.slice(from, at + 1));
      return at + 1;
    }
    // The list's own `]`: the text from here on is the envelope's again.
    if (atListDepth) this.#listDepth = -1;
    return from;
  }

  #finishItem(last: string): void {
    this.#item!.push(last);
    const item = JSON.parse(this.#item!.join('')) as unknown;
    this.#item = undefined;
    if (this.#keep(item)) this.#items.push(item);
  }
}

/**
 * `JsonListScanner` over the chunks of a body (UTF-8 bytes, split anywhere): a fetch `Response`'s
 * `body` (async iterable in Node) or any async iterable of bytes.
 * @throws SyntaxError when the body is not a JSON object with that list.
 */
export async function parseJsonList(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  key: string,
  keep: (item: unknown) => boolean,
): Promise<unknown> {
  const scanner = new JsonListScanner(key, keep);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body as AsyncIterable<Uint8Array>) scanner.push(decoder.decode(chunk, { stream: true }));
  scanner.push(decoder.decode());
  return scanner.end();
}
