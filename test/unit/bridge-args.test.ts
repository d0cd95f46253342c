// The bridge's command lines (issue 31, item 8): an unknown option is answered with the nearest known one, for the
// main command and setup alike, instead of node's advice about quoting a positional argument.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { editDistance, nearestOption, parseCommandLine, UnknownOption } from '../../bridge/src/args.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';

const OPTIONS = { url: { type: 'string' }, 'token-stdin': { type: 'boolean' }, verbose: { type: 'boolean' }, profile: { type: 'string' } } as const;

function refusal(args: string[]): string {
  try {
    parseCommandLine(args, OPTIONS);
  } catch (error) {
    expect(error).toBeInstanceOf(UnknownOption);
    return `${(error as UnknownOption).message}. ${(error as UnknownOption).fix}`;
  }
  throw new Error('accepted');
}

function bridge(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BRIDGE_BIN, ...args], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/nonexistent' }, timeout: 20_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('edit distance and the nearest option', () => {
  it.each([
    ['', '', 0],
    ['url', 'url', 0],
    ['urll', 'url', 1],
    ['tokn', 'token', 1],
    ['porfile', 'profile', 2],
    ['kitten', 'sitting', 3],
  ])('%s to %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });

  it('takes a close name or one the given word begins, and guesses nothing for a far one', () => {
    const known = Object.keys(OPTIONS);
    expect(nearestOption('urll', known)).toBe('url');
    expect(nearestOption('porfile', known)).toBe('profile');
    expect(nearestOption('verb', known)).toBe('verbose');
    expect(nearestOption('token-stdn', known)).toBe('token-stdin');
    expect(nearestOption('zzzzzz', known)).toBeUndefined();
    expect(nearestOption('x', known)).toBeUndefined();
  });
});

describe('parseCommandLine', () => {
  it('parses known options as parseArgs does', () => {
    const { values, positionals } = parseCommandLine(['status', '--url', 'https://b.example', '--verbose'], OPTIONS);
    expect(values).toEqual({ url: 'https://b.example', verbose: true });
    expect(positionals).toEqual(['status']);
  });

  it('names the nearest known option, and says why there is no --token', () => {
    expect(refusal(['--urll', 'x'])).toBe('unknown option --urll (did you mean --url?). Run `roundtable-bridge --help` for the options');
    expect(refusal(['status', '--porfile=a'])).toContain('unknown option --porfile (did you mean --profile?)');
    expect(refusal(['--tokn', 'rt_x'])).toMatch(/^unknown option --tokn: there is no --token; the bridge takes no token on its command line.*roundtable-bridge login/);
    expect(refusal(['--token'])).toMatch(/^unknown option --token: the bridge takes no token/);
    expect(refusal(['--zzzzzz'])).toBe('unknown option --zzzzzz. Run `roundtable-bridge --help` for the options');
    expect(refusal(['-q'])).toBe('unknown option -q. Run `roundtable-bridge --help` for the options');
  });

  it('still refuses a value parseArgs refuses (a string option given none)', () => {
    expect(() => parseCommandLine(['--url'], OPTIONS)).toThrow(/--url/);
  });
});

describe('the real command', () => {
  it('`roundtable-bridge --tokn` and `setup --urls` name the nearest option, without advice about quoting', async () => {
    const main = await bridge(['--tokn']);
    expect(main.code).toBe(1);
    expect(main.stderr).toContain('unknown option --tokn: there is no --token');
    expect(main.stderr).not.toContain('positional');
    const setup = await bridge(['setup', 'claude-code', '--urls', 'http://127.0.0.1:1']);
    expect(setup.code).toBe(1);
    expect(setup.stderr).toContain('unknown option --urls (did you mean --url?). Run `roundtable-bridge setup --help` for the options');
  });
});
