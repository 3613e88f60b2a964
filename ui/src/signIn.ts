/**
 * Signing in with the user's own API key (`docs/ui.md`, "Who may do what"). The UI server adds its
 * own key to reads only; an action that changes something (every method but GET and HEAD) is sent
 * with the user's key as `X-API-Key`. The key is asked for in a modal dialog the first time an
 * action needs it, and kept in `sessionStorage`: this tab only, gone when the tab is closed,
 * never in a cookie (so no other site's page can make the browser send it).
 *
 * `make serve` hands the local demo's key over in the URL's fragment (`#api_key=...`, never sent
 * to any server): `takeKeyFromFragment` moves it into `sessionStorage` and removes it from the
 * address bar before anything else runs.
 */
import { h, replaceChildren } from './dom';

/** The `sessionStorage` entry holding the user's key. */
export const API_KEY_STORAGE_ENTRY = 'lineage-svc.api-key';

/** The URL fragment parameter that carries a key into the page (`#api_key=KEY`). */
export const API_KEY_FRAGMENT_PARAMETER = 'api_key';

/** The key this tab signed in with, or null. */
export function storedApiKey(): string | null {
  try {
    return sessionStorage.getItem(API_KEY_STORAGE_ENTRY);
  } catch {
    return null; // storage refused (e.g. a sandboxed frame): every action asks again
  }
}

/** Keeps `key` for this tab, or forgets the key when `key` is null; tells the listeners. */
export function storeApiKey(key: string | null): void {
  try {
    if (key === null) sessionStorage.removeItem(API_KEY_STORAGE_ENTRY);
    else sessionStorage.setItem(API_KEY_STORAGE_ENTRY, key);
  } catch {
    // storage refused: the key lives as long as this call
  }
  for (const listener of listeners) listener(key !== null);
}

const listeners: ((signedIn: boolean) => void)[] = [];

/** Calls `listener` with whether a key is kept, now and after every change. */
export function onSignInChange(listener: (signedIn: boolean) => void): void {
  listeners.push(listener);
  listener(storedApiKey() !== null);
}

/**
 * Moves a key given in the URL's fragment (`#api_key=KEY`) into `sessionStorage` and removes the
 * fragment from the address bar (`history.replaceState`), so that it is neither bookmarked nor
 * shared with a copied link. Does nothing without such a fragment.
 */
export function takeKeyFromFragment(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const key = fragment.get(API_KEY_FRAGMENT_PARAMETER);
  if (key === null) return;
  if (key !== '') storeApiKey(key);
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
}

let dialog: HTMLDialogElement | undefined;
let pending: Promise<string | null> | undefined;

/** The sign-in dialog, built once: a message, a password field, "Sign in" and "Cancel". */
function signInDialog(): { dialog: HTMLDialogElement; message: HTMLElement; input: HTMLInputElement } {
  if (!dialog) {
    const input = h('input', {
      id: 'sign-in-key',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      required: true,
    });
    dialog = h(
      'dialog',
      { id: 'sign-in', 'aria-labelledby': 'sign-in-title', 'aria-describedby': 'sign-in-message' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'sign-in-title' }, 'Sign in with your API key'),
        h('p', { id: 'sign-in-message' }),
        h('label', { for: 'sign-in-key' }, 'API key'),
        input,
        h(
          'p',
          { class: 'hint' },
          'Kept in this tab only and sent with the actions that change something. The local demo (make serve) prints its key on its terminal.',
        ),
        h(
          'div',
          { class: 'buttons' },
          h('button', { type: 'submit', value: 'sign-in' }, 'Sign in'),
          h('button', { type: 'submit', value: 'cancel', formnovalidate: true }, 'Cancel'),
        ),
      ),
    );
    document.body.append(dialog);
  }
  return {
    dialog,
    message: dialog.querySelector('#sign-in-message')!,
    input: dialog.querySelector('#sign-in-key')!,
  };
}

/**
 * Asks the user for their API key in a modal dialog, saying `reason` (e.g. the API's "API key is
 * invalid"). Resolves with the key, kept in `sessionStorage`, or null when the user cancels
 * (Cancel or Escape). Calls made while the dialog is open share its answer.
 */
export function askForApiKey(reason: string): Promise<string | null> {
  pending ??= new Promise<string | null>((resolve) => {
    const { dialog, message, input } = signInDialog();
    replaceChildren(message, reason);
    input.value = '';
    dialog.returnValue = '';
    dialog.addEventListener(
      'close',
      () => {
        pending = undefined;
        const key = input.value.trim();
        input.value = '';
        if (dialog.returnValue !== 'sign-in' || key === '') return resolve(null);
        storeApiKey(key);
        resolve(key);
      },
      { once: true },
    );
    dialog.showModal();
    input.focus();
  });
  return pending;
}
