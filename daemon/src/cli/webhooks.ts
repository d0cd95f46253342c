// `roundtable webhooks list|add|remove|test|status`: the owner's webhooks, through the admin operations in webhook-admin.ts.
import { excludeDaemonFiles } from '../process/git-exclude.js';
import type { Config } from '../runtime/config.js';
import { quoted } from '../runtime/terminal-text.js';
import { WEBHOOK_EVENTS } from '../store/webhook-events.js';
import { WEBHOOK_FORMATS } from '../store/webhooks-port.js';
import type { Command, Invocation } from './command.js';
import { projectMisuse, projectOption, requireProject } from './project-option.js';
import { addWebhook, describeWebhookHealth, openWebhookAdmin, queueTest, shownUrl, WebhookCommandError } from './webhook-admin.js';
import { tableText } from './table.js';

async function webhooksCommand(config: Config, { command, args, values }: Invocation): Promise<void> {
  const project = projectOption(values);
  await requireProject(config, project);
  const admin = await openWebhookAdmin(config, project);
  const json = values['json'] === true;
  const applies = config.databaseUrl ? 'every daemon on the board uses it from its next delivery' : 'a running board uses it from its next delivery';
  try {
    switch (command) {
      case 'webhooks list': {
        const hooks = (await admin.listWebhooks()).map((h) => ({ ...h, url: shownUrl(h.url) }));
        if (json) return void process.stdout.write(`${JSON.stringify({ webhooks: hooks })}\n`);
        if (hooks.length === 0) return void process.stdout.write('No webhooks. Add one with `roundtable webhooks add URL --events submitted`.\n');
        const optional = (allowed: boolean, what: string) => (allowed ? what : undefined);
        const rows = hooks.map((h) => [h.id, h.format, h.url, `events=${h.events.join(',')}`, optional(h.allowLoopback, 'loopback allowed'), optional(h.allowPrivate, 'private allowed')]);
        process.stdout.write(tableText(rows, { widths: [0, 7], gap: '  ' }));
        return;
      }
      case 'webhooks add': {
        const { webhook, secret } = await addWebhook(admin, {
          url: args[0]!,
          events: String(values['events']),
          format: typeof values['format'] === 'string' ? values['format'] : undefined,
          allowHttpLoopback: values['allow-http-loopback'] === true,
          allowPrivate: values['allow-private'] === true,
        });
        // webhook-secrets.json may be new: kept out of the repository the board sits in, like its other files.
        excludeDaemonFiles(config);
        if (json) return void process.stdout.write(`${JSON.stringify({ id: webhook.id, secret })}\n`);
        process.stdout.write(`Added webhook ${webhook.id} (${webhook.format}, events ${webhook.events.join(',')}); ${applies}.\nIts signing secret (shown once; verify the webhook-signature header with it):\n  ${secret}\n`);
        return;
      }
      case 'webhooks remove':
        if (!(await admin.removeWebhook(args[0]!))) throw new WebhookCommandError(`no webhook has the id ${quoted(args[0]!)}; \`roundtable webhooks list\` shows them`);
        process.stdout.write(`Removed webhook ${args[0]} with its secret and its undelivered deliveries.\n`);
        return;
      case 'webhooks test': {
        const id = await queueTest(admin, args[0]!);
        process.stdout.write(`Queued test delivery ${id}; a running board sends it within a second or two (\`roundtable webhooks status\` shows how its attempt ended).\n`);
        return;
      }
      case 'webhooks status': {
        const status = await admin.status(50);
        if (json) return void process.stdout.write(`${JSON.stringify({ ...status, webhooks: status.webhooks.map((h) => ({ ...h, url: shownUrl(h.url) })) })}\n`);
        process.stdout.write(`Pending: ${status.pending}  Delivered (last 24 h): ${status.delivered}  Dead-lettered: ${status.deadTotal}\n`);
        for (const h of status.webhooks) process.stdout.write(`${describeWebhookHealth(h)}\n`);
        const dead = status.dead.map((d) => [`dead ${d.id}`, `webhook=${d.webhookId}`, `event=${d.event}`, `attempts=${d.attempts}`, `last_error=${d.lastError ?? '-'}`, `at=${d.createdAt}`]);
        process.stdout.write(tableText(dead, { widths: [], gap: '  ', indent: '  ' }));
        return;
      }
    }
  } finally {
    await admin.close();
  }
}

const WEBHOOK_ID = [{ name: 'ID', missing: 'a webhook ID (`roundtable webhooks list` shows them)' }];

export const WEBHOOKS_COMMANDS: readonly Command[] = [
  { name: 'webhooks list', usage: 'webhooks list [--project SLUG] [--json]', summary: 'id, events, format and origin of every webhook (never its secret)', options: ['json', 'project'], args: [], misuse: projectMisuse, run: webhooksCommand },
  {
    name: 'webhooks add',
    usage: `webhooks add URL --events ${WEBHOOK_EVENTS.join(',')} [--format ${WEBHOOK_FORMATS.join('|')}] [--allow-http-loopback] [--allow-private] [--project SLUG] [--json]`,
    summary: 'a webhook for these events (https only; http and loopback only with --allow-http-loopback); print its signing secret once',
    options: ['events', 'format', 'allow-http-loopback', 'allow-private', 'project', 'json'],
    args: [{ name: 'URL', missing: 'the receiver URL, such as https://hooks.slack.com/services/...' }],
    misuse: (values) => projectMisuse(values) ?? (typeof values['events'] !== 'string' ? `roundtable webhooks add needs --events, a list of ${WEBHOOK_EVENTS.join(', ')}` : undefined),
    run: webhooksCommand,
  },
  { name: 'webhooks remove', usage: 'webhooks remove ID [--project SLUG]', summary: 'the webhook, its secret and its undelivered deliveries', options: ['project'], args: WEBHOOK_ID, misuse: projectMisuse, run: webhooksCommand },
  { name: 'webhooks test', usage: 'webhooks test ID [--project SLUG]', summary: 'queue a signed test delivery to the webhook (a running board sends it)', options: ['project'], args: WEBHOOK_ID, misuse: projectMisuse, run: webhooksCommand },
  {
    name: 'webhooks status',
    usage: 'webhooks status [--project SLUG] [--json]',
    summary: "each webhook's last attempt (time, outcome, reason) and next retry, the counts, and the dead-letter list",
    options: ['json', 'project'],
    args: [],
    misuse: projectMisuse,
    run: webhooksCommand,
  },
];
