// Where the agent's token comes from, in order: ROUNDTABLE_TOKEN, the OS keychain, ROUNDTABLE_TOKEN_FILE (mode 600 on POSIX).
import { readFile, stat } from 'node:fs/promises';
import { BadConfig, BridgeError, KeychainLocked, KeychainTimeout, KeychainUnavailable, NoCredential, TokenFileInsecure } from './errors.js';
import { KEYCHAIN_SERVICE, readTokenFromKeychain } from './keychain.js';
import { currentPlatform, modeTooOpen, shellArg, type Platform } from './platform.js';

export type TokenSource = 'ROUNDTABLE_TOKEN' | 'keychain' | 'ROUNDTABLE_TOKEN_FILE';

export interface FoundToken {
  readonly token: string;
  readonly source: TokenSource;
  /** The file it was read from, for ROUNDTABLE_TOKEN_FILE. */
  readonly file?: string;
}

/** `place` is the board and keychain account (a BridgeConfig is one): the error for no token names its login command. */
export async function findToken(place: TokenPlace, env: NodeJS.ProcessEnv = process.env, platform: Platform = currentPlatform()): Promise<FoundToken> {
  const account = place.account;
  const fromEnv = env['ROUNDTABLE_TOKEN']?.trim();
  if (fromEnv) return { token: fromEnv, source: 'ROUNDTABLE_TOKEN' };

  let keychainError: BridgeError | undefined;
  try {
    const stored = await readTokenFromKeychain(account, platform);
    if (stored) return { token: stored, source: 'keychain' };
  } catch (error) {
    keychainError = error as BridgeError;
  }

  const file = env['ROUNDTABLE_TOKEN_FILE'];
  if (file) {
    const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
      throw new BadConfig(`ROUNDTABLE_TOKEN_FILE ${file} cannot be read (${error.code ?? 'error'})`);
    });
    // On Windows the file's ACLs (the user profile's, by default) are what protects it: Node reports 0o666 there.
    if (modeTooOpen(info.mode, platform)) throw new TokenFileInsecure(file, info.mode);
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return { token, source: 'ROUNDTABLE_TOKEN_FILE', file };
  }
  // No token anywhere: if the keychain itself failed, that is the more useful thing to say.
  throw keychainError ?? new NoCredential(account, loginCommand(place, platform));
}

/** Where the bridge looks for the token and how to put one there; never the token itself. */
export interface TokenPlace {
  /** The board's base URL. */
  readonly baseUrl: string;
  /** The keychain account: the board's origin, or the --profile name; with a project, followed by /p/SLUG. */
  readonly account: string;
  /** The project (config.ts), and the daemon's address without it: the login command names them apart. */
  readonly project?: string | undefined;
  readonly serverUrl?: string | undefined;
}

/** The login command for this board, project and account, with --profile when the account is not the board's origin. */
export function loginCommand(place: TokenPlace, platform: Platform = currentPlatform()): string {
  const projectPart = place.project === undefined ? '' : `/p/${place.project}`;
  const base = projectPart && place.account.endsWith(projectPart) ? place.account.slice(0, -projectPart.length) : place.account;
  const profile = base === new URL(place.baseUrl).origin ? '' : ` --profile ${shellArg(base, platform)}`;
  const url = place.project === undefined ? place.baseUrl : (place.serverUrl ?? place.baseUrl);
  const project = place.project === undefined ? '' : ` --project ${place.project}`;
  return `roundtable-bridge login --url ${shellArg(url, platform)}${project}${profile}`;
}

/**
 * Why the board refused the token on a project's URL (403 forbidden on a call that no rule refuses, board-client.ts):
 * the token opens another project, or this project does not exist; the daemon answers both alike.
 */
export function wrongProjectMessage(found: FoundToken | undefined, place: TokenPlace & { readonly project: string }): string {
  const fix = found?.source === 'ROUNDTABLE_TOKEN' ? `set ROUNDTABLE_TOKEN to a token of the project "${place.project}"` : `store a token of the project "${place.project}" with \`${loginCommand(place)}\``;
  const where = found === undefined ? "this agent's token" : found.source === 'keychain' ? `the token in the keychain (account "${place.account}")` : `the token in ${found.source}`;
  return `the board at ${place.serverUrl ?? place.baseUrl} refused ${where} for the project "${place.project}": that token opens another project, or there is no project "${place.project}". Check the project (--project, ROUNDTABLE_PROJECT or the /p/ part of --url), or ${fix} (the board's owner issues it)`;
}

/**
 * Why the board refused the token, naming where it came from and the fix for that place: `login` cannot help
 * while ROUNDTABLE_TOKEN is set, since the variable is read before the keychain.
 */
export function refusedTokenMessage(found: FoundToken | undefined, place: TokenPlace): string {
  const refused = `the board at ${place.baseUrl} refused`;
  switch (found?.source) {
    case 'ROUNDTABLE_TOKEN':
      return `${refused} the token in ROUNDTABLE_TOKEN. That variable is read before the keychain, so \`roundtable-bridge login\` cannot replace it: set ROUNDTABLE_TOKEN to this agent's current token (the board's owner issues it), or unset it to use the keychain`;
    case 'keychain':
      return `${refused} the token stored in the keychain (service "${KEYCHAIN_SERVICE}", account "${place.account}"). Run \`${loginCommand(place)}\` to store this agent's current token`;
    case 'ROUNDTABLE_TOKEN_FILE':
      return `${refused} the token in ROUNDTABLE_TOKEN_FILE (${found.file ?? 'the file'}). Write this agent's current token into that file (the board's owner issues it), or store it with \`${loginCommand(place)}\` (the keychain is read before the file)`;
    default:
      return `${refused} this agent's token. It is read from ROUNDTABLE_TOKEN if set, else the keychain, else ROUNDTABLE_TOKEN_FILE: replace it where it is (for the keychain: \`${loginCommand(place)}\`)`;
  }
}

/** One line for the log when no token can be found at start: where the bridge looked and how to fix it. */
export function noTokenLine(error: unknown, place: TokenPlace, env: NodeJS.ProcessEnv = process.env): string {
  const keychain = `service "${KEYCHAIN_SERVICE}", account "${place.account}"`;
  const file = env['ROUNDTABLE_TOKEN_FILE'];
  const filePart = file ? `ROUNDTABLE_TOKEN_FILE (${file}) is empty` : 'ROUNDTABLE_TOKEN_FILE is not set';
  if (error instanceof NoCredential) {
    return `no token for ${place.baseUrl}: ROUNDTABLE_TOKEN is not set, the keychain has none (${keychain}), ${filePart}; every tool call will fail until you run \`${loginCommand(place)}\``;
  }
  if (error instanceof KeychainLocked || error instanceof KeychainTimeout || error instanceof KeychainUnavailable) {
    return `no token for ${place.baseUrl}: ROUNDTABLE_TOKEN is not set, the keychain (${keychain}) could not be read (${error.message}), ${filePart}. ${error.fix}. With a working keychain, \`${loginCommand(place)}\` stores the token`;
  }
  // A token file that is there but unusable (mode, unreadable): its own message names the file and the fix.
  const why = error instanceof BridgeError ? `${error.message}. ${error.fix}` : String((error as Error)?.message ?? error);
  return `no usable token for ${place.baseUrl}: ${why}`;
}
