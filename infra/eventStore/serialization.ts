/**
 * Turning events into the text the durable adapters store (file, sqlite, postgres): one place for
 * the checks and the messages.
 */
import { ValidationError, errorMessage } from '../../src/errors.js';
import type { EventToAppend } from '../../src/eventStore.js';

/**
 * JSON text of each part of an event (`data` is `event.dataJson` as it is, when the caller gave it).
 * @throws ValidationError when the type is not a string, the version not an integer, or the data or
 *   metadata cannot be stored as JSON.
 */
export function serializeEvent(
  event: EventToAppend,
  index: number,
): { type: string; version: number; data: string; metadata: string } {
  if (typeof event.type !== 'string' || event.type === '') {
    throw new ValidationError(`events.${index}.type must be a non-empty string`, [
      { path: `events.${index}.type`, message: 'must be a non-empty string' },
    ]);
  }
  if (!Number.isInteger(event.version)) {
    throw new ValidationError(`events.${index}.version must be an integer`, [
      { path: `events.${index}.version`, message: 'must be an integer' },
    ]);
  }
  return {
    type: event.type,
    version: event.version,
    data: event.dataJson ?? toJson(event.data, `events.${index}.data`),
    metadata: toJson(event.metadata, `events.${index}.metadata`),
  };
}

/** JSON text of a value, or a ValidationError naming `path` when it has none. */
export function toJson(value: unknown, path: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new ValidationError(`${path} cannot be stored as JSON: ${errorMessage(error)}`, [
      { path, message: errorMessage(error) },
    ]);
  }
  if (json === undefined)
    throw new ValidationError(`${path} cannot be stored as JSON`, [{ path, message: 'not a JSON value' }]);
  return json;
}
