/**
 * XML for the GraphML and GEXF exporters, written by `@xmldom/xmldom` (W3C DOM and its
 * XMLSerializer): the document's frame (declaration, root, declarations of columns) is one document
 * serialized around a marker, and each node and edge is an element serialized on its own, so that a
 * graph of any size is written one element at a time and never held as one document or one string.
 *
 * Escaping: the serializer escapes `&`, `<`, `>` and `"` everywhere, and tab, line feed and carriage
 * return in attribute values (as character references, so they read back exactly). Ours: characters
 * that XML 1.0 cannot carry at all (C0 controls other than tab, line feed and carriage return;
 * unpaired surrogates; U+FFFE and U+FFFF) are replaced by U+FFFD; DEL and the C1 controls
 * (U+007F-U+009F), which XML 1.0 carries but readers may take for line ends or drop, are written
 * as character references (`&#133;`), so that no raw control character is written and they read
 * back exactly. In element text, a carriage return reads back as a line feed (XML end-of-line
 * handling: `\r\n` and `\r` become `\n`).
 */
import { DOMImplementation, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';

// Everything outside XML 1.0's Char production (https://www.w3.org/TR/xml/#charsets).
const NOT_XML_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

// The quick test: text of printable ASCII, tabs and line breaks (most ids and names) is safe.
const BEYOND_PRINTABLE_ASCII = /[^\t\n\r\u0020-\u007E]/;

/** `text` with every character XML 1.0 cannot carry replaced by U+FFFD. */
export function xmlSafe(text: string): string {
  if (!BEYOND_PRINTABLE_ASCII.test(text)) return text;
  NOT_XML_CHARACTER.lastIndex = 0;
  return NOT_XML_CHARACTER.test(text) ? text.replace(NOT_XML_CHARACTER, '\uFFFD') : text;
}

// DEL and the C1 controls, written as character references.
const REFERENCED_CONTROL = /[\u007F-\u009F]/;
const REFERENCED_CONTROLS = /[\u007F-\u009F]/g;

/** Serialized XML with DEL and the C1 controls as character references (they occur only in text and attribute values). */
function referenceControls(xml: string): string {
  return REFERENCED_CONTROL.test(xml)
    ? xml.replace(REFERENCED_CONTROLS, (character) => `&#${character.charCodeAt(0)};`)
    : xml;
}

const MARKER = 'lineage-svc: elements go here';

/** Attributes of an element; undefined ones are left out. */
export type XmlAttributes = Readonly<Record<string, string | undefined>>;

/** Builds elements in one DOM document and serializes them. */
export class XmlWriter {
  readonly #document: Document;
  readonly #serializer = new XMLSerializer();
  readonly #namespace: string;

  /** @param namespace the default namespace of the document, whose root is `rootName`. */
  constructor(namespace: string, rootName: string) {
    this.#namespace = namespace;
    this.#document = new DOMImplementation().createDocument(namespace, rootName, null);
  }

  /** The root element, to which the frame's attributes and children are added. */
  get root(): Element {
    return this.#document.documentElement!;
  }

  /**
   * A new element in the document's namespace, for the frame (its children inherit the namespace).
   * `content` is its text, or its children.
   */
  frameElement(name: string, attributes: XmlAttributes = {}, content?: string | readonly Element[]): Element {
    return this.#fill(this.#document.createElementNS(this.#namespace, name), attributes, content);
  }

  /**
   * A new element without a namespace, to be serialized on its own and placed inside the frame,
   * where it is in the frame's default namespace. A name may have a prefix that the root declares
   * (`viz:color`).
   */
  element(name: string, attributes: XmlAttributes = {}, content?: string | readonly Element[]): Element {
    return this.#fill(this.#document.createElement(name), attributes, content);
  }

  /** A text node (white space between elements of the frame). */
  text(content: string): ReturnType<Document['createTextNode']> {
    return this.#document.createTextNode(content);
  }

  /** The XML of one element made by `element`. */
  serialize(element: Element): string {
    return referenceControls(this.#serializer.serializeToString(element));
  }

  /**
   * The XML declaration and the frame, cut where the elements go: each container (an element of the
   * frame) gets a marker as its last child, the whole document is serialized, and the text is cut
   * at the markers: one more piece than containers, in document order.
   */
  frame(...containers: Element[]): string[] {
    const document = this.#document;
    document.insertBefore(document.createProcessingInstruction('xml', 'version="1.0" encoding="UTF-8"'), this.root);
    const markers = containers.map((container) => container.appendChild(document.createComment(MARKER)));
    const pieces = referenceControls(this.#serializer.serializeToString(document)).split(`<!--${MARKER}-->`);
    markers.forEach((marker) => marker.parentNode?.removeChild(marker));
    return pieces;
  }

  #fill(element: Element, attributes: XmlAttributes, content?: string | readonly Element[]): Element {
    for (const [name, value] of Object.entries(attributes)) {
      if (value !== undefined) element.setAttribute(name, xmlSafe(value));
    }
    if (typeof content === 'string') element.appendChild(this.#document.createTextNode(xmlSafe(content)));
    else for (const child of content ?? []) element.appendChild(child);
    return element;
  }
}
