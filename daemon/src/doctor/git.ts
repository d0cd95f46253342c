// The doctor's git line: secret-bearing files of the board inside a git work tree, neither ignored nor untracked.
import { existsSync } from 'node:fs';
import { exposedToGit } from '../process/git-exclude.js';
import type { Config } from '../runtime/config.js';
import type { CheckResult } from '../store/check-result.js';
import { result } from './result.js';

/** A file holding a secret inside a git work tree, not ignored: `git add -A` would commit it. */
export function checkGit(config: Config): CheckResult {
  const found = exposedToGit(config, existsSync);
  if (found.git === 'missing') return result('git', 'ok', 'git is not installed: not checked whether secret-bearing files sit in a repository');
  if (found.exposed.length === 0) return result('git', 'ok', 'no secret-bearing file of the board is in a git work tree without being ignored');
  const tracked = found.exposed.filter((f) => f.tracked);
  const fixes = [
    ...(found.exposed.length > tracked.length ? ['start the board once (it adds its files to the repository\'s .git/info/exclude), or list them in .gitignore'] : []),
    ...tracked.map((f) => `git rm --cached ${f.path} (and rotate what it holds if it was pushed)`),
  ];
  return result(
    'git',
    'warn',
    found.exposed.map((f) => `${f.path} (${f.what}) is in a git work tree and ${f.tracked ? 'tracked by git' : 'not ignored'}`).join('; '),
    fixes.join('; '),
  );
}
