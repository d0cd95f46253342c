// The one atomic mode-600 write that agents.json and webhook-secrets.json share (daemon/src/runtime/private-file.ts).
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { writePrivateFile } from '../../daemon/src/runtime/private-file.js';
import { writeSecrets } from '../../daemon/src/webhooks/secret-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-private-'));
  dirs.push(dir);
  return dir;
}

it.skipIf(process.platform === 'win32')('replaces a file others could read with one only its owner can, and leaves nothing beside it', () => {
  const dir = tempDir();
  const path = join(dir, 'agents.json');
  writeFileSync(path, 'old\n');
  chmodSync(path, 0o644);
  writePrivateFile(path, 'new\n');
  expect(readFileSync(path, 'utf8')).toBe('new\n');
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir)).toEqual(['agents.json']);
});

it('removes its temporary file when the rename fails, and rethrows', () => {
  const dir = tempDir();
  // A folder with something in it cannot be replaced by a file.
  const path = join(dir, 'webhook-secrets.json');
  mkdirSync(path);
  writeFileSync(join(path, 'inside'), '');
  expect(() => writePrivateFile(path, '{}\n')).toThrow();
  expect(readdirSync(dir)).toEqual(['webhook-secrets.json']);
});

it.skipIf(process.platform === 'win32')('writes the webhook signing secrets through it: mode 600, JSON', () => {
  const path = join(tempDir(), 'webhook-secrets.json');
  writeSecrets(path, { wh_1: 's3cret' });
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ wh_1: 's3cret' });
});
