// Signing in and out: a token is exchanged for a session cookie (HttpOnly: this page never sees it) and forgotten.
import { byId } from './dom.js';
import { request } from './net.js';

export function showSignInError(message: string): void {
  const el = byId('signin-error');
  el.textContent = message;
  el.hidden = message === '';
}

/** Shows the form with a message; `clear` empties the board first (nothing of it stays on screen). */
export function showSignInForm(message: string): void {
  byId('app').hidden = true;
  byId('overview').hidden = true;
  byId('signin').hidden = false;
  document.title = 'Roundtable';
  showSignInError(message);
  byId('token').focus();
}

export function watchSignIn(signedIn: () => Promise<void>, signOut: () => void): void {
  const form = byId<HTMLFormElement>('signin-form');
  const tokenInput = byId<HTMLInputElement>('token');
  const button = byId<HTMLButtonElement>('signin-button');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    if (!token) return;
    button.disabled = true;
    showSignInError('');
    try {
      const answer = await request<{ error?: { retry_after_s?: number } }>('POST', '/session', { token });
      if (answer.status === 200) {
        tokenInput.value = '';
        await signedIn();
        return;
      }
      if (answer.status === 401) showSignInError('That token is not valid for this board.');
      else if (answer.status === 429) showSignInError(`Too many attempts. Try again in ${answer.body?.error?.retry_after_s ?? 60} s.`);
      else if (answer.status === 403) showSignInError('This address is not allowed to sign in; the board owner can add it to ROUNDTABLE_ALLOWED_HOSTS.');
      else showSignInError('Signing in failed. Try again.');
      tokenInput.select();
    } catch {
      showSignInError('The board cannot be reached.');
    } finally {
      button.disabled = false;
    }
  });
  // The board's button and the list of projects' one: the daemon's sign-out ends the session for every project.
  for (const id of ['signout', 'overview-signout']) {
    byId(id).addEventListener('click', async () => {
      try {
        await request('POST', '/session/logout');
      } catch {
        // signed out locally either way
      }
      signOut();
    });
  }
}
