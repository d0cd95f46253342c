// The environment each agent app gives a stdio MCP server it starts, so setup can start its entry the same way.
// Read from each app's own source or documentation and confirmed against its binary (docs/CONNECT.md, "What setup
// writes"): Claude Code and opencode pass their whole environment, Codex a short list plus the entry's env_vars, the
// Gemini CLI its environment without any variable whose name looks like a secret.
import type { Platform } from '../platform.js';

/** How an app filters its environment for an MCP server. */
export type EnvRule = 'whole' | 'allowlist' | 'without-secrets';

/** Codex on Unix (codex-rs/rmcp-client/src/utils.rs, DEFAULT_ENV_VARS), plus the CA variables 0.169 also passes. */
const CODEX_UNIX = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', '__CF_USER_TEXT_ENCODING', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ'];
const CODEX_CA = ['CURL_CA_BUNDLE', 'GIT_SSL_CAINFO', 'NODE_EXTRA_CA_CERTS', 'PIP_CERT', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_FILE'];
/** Codex on Windows: its core variables (not run here; from its source's list of names). */
const CODEX_WINDOWS = ['PATH', 'PATHEXT', 'COMSPEC', 'SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'USERNAME', 'USERDOMAIN', 'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH', 'APPDATA', 'LOCALAPPDATA', 'PROGRAMDATA', 'PROGRAMFILES', 'TEMP', 'TMP'];

/**
 * What the token lookup needs and Codex would drop: the session bus (the Secret Service), and the two token
 * variables for headless machines; the state folder's variables keep the bridge's state where the hooks keep it.
 * Codex copies each from its own environment when set, so no value is written into config.toml.
 */
export const CODEX_ENV_VARS = ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'ROUNDTABLE_TOKEN', 'ROUNDTABLE_TOKEN_FILE', 'ROUNDTABLE_STATE_DIR', 'XDG_STATE_HOME'] as const;

/** The Gemini CLI (packages/core/src/services/environmentSanitization.ts): names it never passes to an MCP server. */
const GEMINI_SECRET_NAMES = [/TOKEN/i, /SECRET/i, /PASSWORD/i, /PASSWD/i, /KEY/i, /AUTH/i, /CREDENTIAL/i, /CREDS/i, /PRIVATE/i, /CERT/i];
const GEMINI_ALWAYS = new Set(['PATH', 'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'WINDIR', 'TEMP', 'TMP', 'USERPROFILE', 'SYSTEMDRIVE', 'HOME', 'LANG', 'SHELL', 'TMPDIR', 'USER', 'LOGNAME', 'TERM', 'COLORTERM']);

export interface EntryEnvironment {
  /** Literal variables the entry sets (env, environment). */
  readonly env?: Readonly<Record<string, string>>;
  /** Codex: names copied from the app's environment. */
  readonly envVars?: readonly string[];
}

/** The environment the app would give the entry's process, from the environment the app itself runs in. */
export function serverEnvironment(rule: EnvRule, parent: NodeJS.ProcessEnv, entry: EntryEnvironment, platform: Platform): Record<string, string> {
  const out: Record<string, string> = {};
  const copy = (name: string) => {
    const value = parent[name];
    if (value !== undefined) out[name] = value;
  };
  if (rule === 'allowlist') {
    for (const name of [...(platform === 'win32' ? CODEX_WINDOWS : [...CODEX_UNIX, ...CODEX_CA]), ...(entry.envVars ?? [])]) copy(name);
  } else {
    for (const name of Object.keys(parent)) if (rule === 'whole' || !geminiRedacts(name, parent)) copy(name);
  }
  for (const [name, value] of Object.entries(entry.env ?? {})) out[name] = rule === 'without-secrets' ? expand(value, out) : value;
  return out;
}

/** Whether the Gemini CLI keeps a variable from its MCP servers. In GitHub Actions it keeps only its fixed list. */
export function geminiRedacts(name: string, parent: NodeJS.ProcessEnv): boolean {
  const key = name.toUpperCase();
  if (key.startsWith('GEMINI_CLI_') || key.startsWith('GIT_CONFIG_') || GEMINI_ALWAYS.has(key)) return false;
  if (parent['GITHUB_SHA'] || parent['SURFACE'] === 'Github') return true;
  return GEMINI_SECRET_NAMES.some((pattern) => pattern.test(key));
}

/** $VAR and ${VAR} in an entry's env value, from what the server would see (the Gemini CLI expands them so). */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_all, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ''] ?? '');
}

/** What a person reads about an app's rule, in setup's output and its check. */
export function describeRule(rule: EnvRule): string {
  switch (rule) {
    case 'whole':
      return 'its whole environment';
    case 'allowlist':
      return 'only HOME, PATH, SHELL, TERM, LANG, USER, LOGNAME, TMPDIR, TZ and the CA variables, plus the entry\'s env_vars';
    case 'without-secrets':
      return 'its environment without any variable whose name holds TOKEN, KEY, SECRET, AUTH, CERT and the like';
  }
}
