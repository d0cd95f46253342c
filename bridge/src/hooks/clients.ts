// The agent apps whose command hooks we answer, the events of each, and the JSON each event accepts on stdout.
// Sources (each confirmed from the client's own documentation; stdin examples kept in test/fixtures/hooks/):
//   Claude Code  https://code.claude.com/docs/en/hooks  (SessionStart, UserPromptSubmit, Stop)
//   Codex        https://developers.openai.com/codex/hooks and codex-rs/hooks/schema/generated/*.schema.json
//                (the same event names and output fields as Claude Code; hooks.json, [features] hooks, on by default)
//   Gemini CLI   https://geminicli.com/docs/hooks/reference  (SessionStart, BeforeAgent, AfterAgent)

/** What a hook does for an event: add context at start, a digest before a prompt, or the stop check. */
export type HookKind = 'start' | 'prompt' | 'stop';

export const HOOK_CLIENTS = {
  'claude-code': { SessionStart: 'start', UserPromptSubmit: 'prompt', Stop: 'stop' },
  codex: { SessionStart: 'start', UserPromptSubmit: 'prompt', Stop: 'stop' },
  'gemini-cli': { SessionStart: 'start', BeforeAgent: 'prompt', AfterAgent: 'stop' },
} as const satisfies Record<string, Record<string, HookKind>>;

export type HookClient = keyof typeof HOOK_CLIENTS;

export function isHookClient(name: string): name is HookClient {
  return Object.hasOwn(HOOK_CLIENTS, name);
}

/** Other spellings of a client's name, taken as that client (setup accepts the same). */
const HOOK_ALIASES: Record<string, HookClient> = { gemini: 'gemini-cli' };

/** The client a name means, its own or another spelling; undefined for none. */
export function hookClientNamed(name: string): HookClient | undefined {
  return isHookClient(name) ? name : Object.hasOwn(HOOK_ALIASES, name) ? HOOK_ALIASES[name] : undefined;
}

export function hookKind(client: HookClient, event: string): HookKind | undefined {
  const events = HOOK_CLIENTS[client] as Record<string, HookKind>;
  return Object.hasOwn(events, event) ? events[event] : undefined;
}

/** Context for the model at session start or before a prompt: `hookSpecificOutput.additionalContext` in all three. */
export function contextOutput(event: string, text: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
}

/** Keeps the agent working: `decision: "block"` with a reason (Claude Code, Codex); Gemini CLI's AfterAgent says "deny". */
export function stopOutput(client: HookClient, reason: string): Record<string, unknown> {
  return { decision: client === 'gemini-cli' ? 'deny' : 'block', reason };
}
