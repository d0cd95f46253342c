// Where the agent's token comes from, in order: ROUNDTABLE_TOKEN, the OS keychain, ROUNDTABLE_TOKEN_FILE (mode 600).
import { readFile, stat } from 'node:fs/promises';
import { BadConfig, NoCredential, TokenFileInsecure, type BridgeError } from './errors.js';
import { readTokenFromKeychain } from './keychain.js';

export type TokenSource = 'ROUNDTABLE_TOKEN' | 'keychain' | 'ROUNDTABLE_TOKEN_FILE';

export interface FoundToken {
  readonly token: string;
  readonly source: TokenSource;
}

export async function findToken(account: string, env: NodeJS.ProcessEnv = process.env): Promise<FoundToken> {
  const fromEnv = env['ROUNDTABLE_TOKEN']?.trim();
  if (fromEnv) return { token: fromEnv, source: 'ROUNDTABLE_TOKEN' };

  let keychainError: BridgeError | undefined;
  try {
    const stored = await readTokenFromKeychain(account);
    if (stored) return { token: stored, source: 'keychain' };
  } catch (error) {
    keychainError = error as BridgeError;
  }

  const file = env['ROUNDTABLE_TOKEN_FILE'];
  if (file) {
    const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
      throw new BadConfig(`ROUNDTABLE_TOKEN_FILE ${file} cannot be read (${error.code ?? 'error'})`);
    });
    if ((info.mode & 0o077) !== 0) throw new TokenFileInsecure(file, info.mode);
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return { token, source: 'ROUNDTABLE_TOKEN_FILE' };
  }
  // No token anywhere: if the keychain itself failed, that is the more useful thing to say.
  throw keychainError ?? new NoCredential(account);
}
