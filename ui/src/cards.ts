/**
 * Node cards, drawn by sigma on its label layer: at a readable zoom a node is a card (its type's
 * icon, its name elided in the middle, its type and what is collapsed into it); below that zoom it
 * is the dot sigma draws. Cards have the size the layout gave them (`CardLayoutResult`), so two
 * cards never overlap. `elideMiddle` is pure (tested in Node).
 */
import type { NodeDisplayData, PartialButFor } from 'sigma/types';
import { humanize } from './styles';

/** Card pixels below which a node is drawn as a dot only (the level of detail). */
export const CARD_MIN_HEIGHT_PIXELS = 20;

/** What the card needs beyond sigma's display data. */
export interface CardData {
  label: string | null;
  color: string;
  borderColor?: string;
  nodeType?: string;
  /** E.g. `2 consumer groups, 1 schema` folded into a topic. */
  collapsedText?: string;
  faded?: boolean;
}

/** The card's size on screen, updated by the graph view before each frame. */
export const cardScreen = { width: 0, height: 0 };

/**
 * `text` shortened in the middle with an ellipsis so that `measure(result) <= maxWidth`; the start
 * and the end are kept (`orders.v1.customer_enriched` -> `orders.v1…enriched`). Answers `text`
 * when it fits and `…` when nothing else fits.
 */
export function elideMiddle(text: string, maxWidth: number, measure: (text: string) => number): string {
  if (measure(text) <= maxWidth) return text;
  let low = 0;
  let high = text.length - 1;
  let best = '…';
  // Binary search on the number of characters kept, split evenly (the end gets the extra one).
  while (low <= high) {
    const kept = (low + high) >> 1;
    const head = Math.floor(kept / 2);
    const candidate = `${text.slice(0, head)}…${text.slice(text.length - (kept - head))}`;
    if (measure(candidate) <= maxWidth) {
      best = candidate;
      low = kept + 1;
    } else high = kept - 1;
  }
  return best;
}

/** The page's colors for cards (light or dark theme), read from CSS variables. */
function themeColors() {
  const style = getComputedStyle(document.documentElement);
  return {
    card: style.getPropertyValue('--card').trim() || '#ffffff',
    text: style.getPropertyValue('--text').trim() || '#1b1f24',
    muted: style.getPropertyValue('--muted').trim() || '#5b636e',
    line: style.getPropertyValue('--line').trim() || '#d4d8dd',
  };
}
let colors: ReturnType<typeof themeColors> | undefined;
/** Reads the theme's colors again (after the theme changed). */
export function refreshCardColors() {
  colors = themeColors();
}

/** A type's icon, drawn in white over a rounded square of the type's color. */
function drawIcon(
  context: CanvasRenderingContext2D,
  nodeType: string,
  x: number,
  y: number,
  size: number,
  color: string,
) {
  const r = size / 2;
  context.fillStyle = color;
  context.beginPath();
  context.roundRect(x - r, y - r, size, size, size * 0.22);
  context.fill();
  context.strokeStyle = '#ffffff';
  context.fillStyle = '#ffffff';
  context.lineWidth = Math.max(1, size / 11);
  const unit = size / 10;
  context.beginPath();
  switch (nodeType) {
    case 'TOPIC': // a log: three stacked records
      for (const dy of [-2.5, 0, 2.5]) {
        context.moveTo(x - 3 * unit, y + dy * unit);
        context.lineTo(x + 3 * unit, y + dy * unit);
      }
      break;
    case 'CONNECTOR': // a plug
      context.rect(x - 2.5 * unit, y - 1 * unit, 5 * unit, 3.5 * unit);
      context.moveTo(x - 1.2 * unit, y - 1 * unit);
      context.lineTo(x - 1.2 * unit, y - 3.5 * unit);
      context.moveTo(x + 1.2 * unit, y - 1 * unit);
      context.lineTo(x + 1.2 * unit, y - 3.5 * unit);
      break;
    case 'CONSUMER_GROUP': // people
      context.arc(x - 1.7 * unit, y - 1 * unit, 1.4 * unit, 0, Math.PI * 2);
      context.moveTo(x + 3.1 * unit, y - 1 * unit);
      context.arc(x + 1.7 * unit, y - 1 * unit, 1.4 * unit, 0, Math.PI * 2);
      context.moveTo(x - 3.5 * unit, y + 3 * unit);
      context.lineTo(x + 3.5 * unit, y + 3 * unit);
      break;
    case 'SCHEMA': // braces
      context.moveTo(x - 1 * unit, y - 3.5 * unit);
      context.lineTo(x - 2.5 * unit, y);
      context.lineTo(x - 1 * unit, y + 3.5 * unit);
      context.moveTo(x + 1 * unit, y - 3.5 * unit);
      context.lineTo(x + 2.5 * unit, y);
      context.lineTo(x + 1 * unit, y + 3.5 * unit);
      break;
    case 'MATERIALIZED_TABLE':
    case 'CATALOG_TABLE': // a table grid
      context.rect(x - 3.5 * unit, y - 3 * unit, 7 * unit, 6 * unit);
      context.moveTo(x - 3.5 * unit, y - 1 * unit);
      context.lineTo(x + 3.5 * unit, y - 1 * unit);
      context.moveTo(x, y - 1 * unit);
      context.lineTo(x, y + 3 * unit);
      break;
    case 'EXTERNAL_DATASET': // a cylinder
      context.ellipse(x, y - 2.5 * unit, 3.2 * unit, 1.2 * unit, 0, 0, Math.PI * 2);
      context.moveTo(x - 3.2 * unit, y - 2.5 * unit);
      context.lineTo(x - 3.2 * unit, y + 2.5 * unit);
      context.ellipse(x, y + 2.5 * unit, 3.2 * unit, 1.2 * unit, 0, Math.PI, 0, true);
      context.lineTo(x + 3.2 * unit, y - 2.5 * unit);
      break;
    case 'GROUP': // a collapsed group: stacked cards
      context.rect(x - 3.5 * unit, y - 1.5 * unit, 5 * unit, 4.5 * unit);
      context.moveTo(x - 2 * unit, y - 1.5 * unit);
      context.lineTo(x - 2 * unit, y - 3 * unit);
      context.lineTo(x + 3.5 * unit, y - 3 * unit);
      context.lineTo(x + 3.5 * unit, y + 1.5 * unit);
      context.lineTo(x + 1.5 * unit, y + 1.5 * unit);
      break;
    default: // jobs, queries, statements: a play triangle (something that runs)
      context.moveTo(x - 2 * unit, y - 3 * unit);
      context.lineTo(x + 3 * unit, y);
      context.lineTo(x - 2 * unit, y + 3 * unit);
      context.closePath();
      context.fill();
  }
  context.stroke();
}

/**
 * Draws a node's card centred on its position, when cards are readable at the current zoom
 * (`cardScreen.height >= CARD_MIN_HEIGHT_PIXELS`); otherwise draws nothing (the dot stays).
 */
export function drawCard(
  context: CanvasRenderingContext2D,
  data: PartialButFor<NodeDisplayData, 'x' | 'y' | 'size' | 'label' | 'color'> & CardData,
  emphasis: 'plain' | 'hovered' = 'plain',
): void {
  const { width, height } = cardScreen;
  if (height < CARD_MIN_HEIGHT_PIXELS || !data.label) return;
  colors ??= themeColors();
  const left = data.x - width / 2;
  const top = data.y - height / 2;
  context.globalAlpha = data.faded ? 0.25 : 1;
  context.fillStyle = colors.card;
  context.strokeStyle = emphasis === 'hovered' ? colors.text : (data.borderColor ?? colors.line);
  context.lineWidth = emphasis === 'hovered' ? 2.5 : 1.5;
  context.beginPath();
  context.roundRect(left, top, width, height, Math.min(8, height / 4));
  context.fill();
  context.stroke();
  const iconSize = Math.min(height - 8, 26);
  const pad = (height - iconSize) / 2;
  drawIcon(context, data.nodeType ?? '', left + pad + iconSize / 2, data.y, iconSize, data.color);
  const textLeft = left + pad * 2 + iconSize;
  const textWidth = width - (textLeft - left) - pad;
  const nameSize = Math.min(14, Math.max(9, height * 0.36));
  const twoLines = height >= 32;
  context.textBaseline = 'middle';
  context.fillStyle = colors.text;
  context.font = `600 ${nameSize}px system-ui, sans-serif`;
  const name = elideMiddle(data.label, textWidth, (text) => context.measureText(text).width);
  context.fillText(name, textLeft, twoLines ? data.y - height * 0.18 : data.y);
  if (twoLines) {
    context.fillStyle = colors.muted;
    context.font = `${Math.max(8, nameSize - 2.5)}px system-ui, sans-serif`;
    const kind = humanize(data.nodeType ?? '');
    const detail = data.collapsedText ? `${kind} · ${data.collapsedText}` : kind;
    context.fillText(
      elideMiddle(detail, textWidth, (text) => context.measureText(text).width),
      textLeft,
      data.y + height * 0.2,
    );
  }
  context.globalAlpha = 1;
}
