// How an owner's action runs from a form: controls held while it is on its way, the outcome announced, errors shown
// beside the form, and a retry after a network failure sent with the same Idempotency-Key.
import { byId } from './dom.js';
import { act, freshKey, type BoardErrorBody } from './net.js';
import { sessionEndedMessage } from './session-end.js';
import { hooks } from './state.js';

/** The key of a form's action still unanswered: kept across a network failure, dropped once the board answers. */
const pendingKeys = new WeakMap<HTMLFormElement, string>();

function announce(message: string): void {
  const status = byId('action-status');
  // A repeated message is still announced: screen readers read a live region when its text changes.
  status.textContent = '';
  status.textContent = message;
}

export interface PerformOptions<T> {
  readonly form: HTMLFormElement;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The words announced when the board accepted the action. */
  readonly done: (body: T) => string;
  /** Where a refusal is shown; role=alert, so it is read out. */
  readonly errorEl: HTMLElement;
}

/** Runs the action; resolves the board's answer when it was accepted, undefined otherwise. */
export async function perform<T>(options: PerformOptions<T>): Promise<T | undefined> {
  const { form, errorEl } = options;
  const controls = [...form.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('button, input, select, textarea')];
  const wasDisabled = controls.map((c) => c.disabled);
  for (const control of controls) control.disabled = true;
  form.setAttribute('aria-busy', 'true');
  showError(errorEl, '');
  let key = pendingKeys.get(form);
  if (!key) {
    key = freshKey();
    pendingKeys.set(form, key);
  }
  try {
    const answer = await act<T>(options.tool, options.args, key);
    pendingKeys.delete(form);
    if (answer.status === 200 && answer.body) {
      announce(options.done(answer.body));
      hooks.refreshState();
      hooks.refreshDetail();
      return answer.body;
    }
    if (answer.status === 401) {
      hooks.signedOut(sessionEndedMessage(answer.body));
      return undefined;
    }
    const body = answer.body as BoardErrorBody | null;
    const message = body?.error?.message ?? `The board answered ${answer.status}.`;
    showError(errorEl, answer.status === 429 ? `Too many actions: ${message}` : message);
    return undefined;
  } catch {
    showError(errorEl, 'The board cannot be reached; nothing was changed that a retry would repeat. Try again.');
    return undefined;
  } finally {
    controls.forEach((control, i) => (control.disabled = wasDisabled[i] ?? false));
    form.removeAttribute('aria-busy');
  }
}

export function showError(el: HTMLElement, message: string): void {
  el.textContent = message;
  el.hidden = message === '';
}
