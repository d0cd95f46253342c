// The pages a person sees at /authorize: sign in, choose what the app becomes, or why the request cannot go on.
// Server-rendered with Hono's html template, which escapes every value: the client's name and redirect host are the
// client's own words and are shown as text only. No script; styles from the board's own stylesheet.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Role } from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';
import type { AuthorizeParams } from './authorize-request.js';

type Page = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The request's parameters carried through the forms unchanged, so the POST is judged exactly as the GET was. */
export const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'resource', 'scope'] as const;

function shell(title: string, body: Page): Page {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="stylesheet" href="/app.css"></head>
<body class="oauth"><main class="oauth-page">${body}</main></body>
</html>`;
}

export function errorPage(message: string): Page {
  return shell('Sign-in cannot go on', html`<h1>This sign-in cannot go on</h1><p role="alert">${message}</p>`);
}

export function signInPage(project: string, action: string, returnTo: string, failed: boolean): Page {
  return shell(
    'Sign in to connect an app',
    html`<h1>Sign in to connect an app to ${project}</h1>
<p>An app asks to join this board. Sign in with your person token (from <code>roundtable people add</code>) to choose what it may do.</p>
${failed ? html`<p role="alert">That token is not valid on this board.</p>` : ''}
<form method="post" action="${action}">
<input type="hidden" name="return_to" value="${returnTo}">
<label>Sign-in token <input name="token" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface ConsentView {
  readonly project: string;
  readonly person: string;
  readonly personRole: string;
  readonly clientName: string | null;
  readonly clientId: string;
  readonly redirectHost: string;
  readonly agents: readonly Agent[];
  readonly roles: readonly Role[];
  readonly params: AuthorizeParams;
  readonly csrf: string;
  readonly action: string;
  readonly problem?: string | undefined;
}

export function consentPage(v: ConsentView): Page {
  const hidden = CARRIED.filter((name) => v.params[name] !== undefined).map((name) => html`<input type="hidden" name="${name}" value="${v.params[name]}">`);
  return shell(
    'Connect an app',
    html`<h1>Connect an app to ${v.project}</h1>
<p>Signed in as <strong>${v.person}</strong> (${v.personRole} here).</p>
<dl class="oauth-client">
<dt>App</dt><dd>${v.clientName ?? '(no name given)'}</dd>
<dt>Client id</dt><dd>${v.clientId}</dd>
<dt>Sends you back to</dt><dd>${v.redirectHost}</dd>
</dl>
<p>The app will act on this project's board as the agent you choose, until you or an owner revoke it.</p>
${v.problem ? html`<p role="alert">${v.problem}</p>` : ''}
<form method="post" action="${v.action}" aria-label="Connect the app">
${hidden}
<input type="hidden" name="csrf" value="${v.csrf}">
<label>Act as <select name="agent">
${v.agents.map((a) => html`<option value="agent:${a.name}">${a.name} (${a.role})</option>`)}
<option value="new" ${v.agents.length === 0 ? 'selected' : ''}>A new agent</option>
</select></label>
<label>New agent's name <input name="new_name" autocomplete="off" maxlength="64"></label>
<label>New agent's role <select name="new_role">${v.roles.map((r) => html`<option value="${r}">${r}</option>`)}</select></label>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
