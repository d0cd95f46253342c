// The bridge's project settings (issue 33): where --project, ROUNDTABLE_PROJECT and a /p/SLUG URL put the requests, the
// keychain account per project (the old account unchanged without one), and the login command that names them.
import { describe, expect, it } from 'vitest';
import { loadBridgeConfig } from '../../bridge/src/config.js';
import { loginCommand } from '../../bridge/src/credentials.js';

const env = {};

describe('the project in the bridge config', () => {
  it('keeps the old account and base without a project', () => {
    const config = loadBridgeConfig({ url: 'https://board.example/mcp' }, env);
    expect(config).toMatchObject({ baseUrl: 'https://board.example', serverUrl: 'https://board.example', project: undefined, account: 'https://board.example' });
    expect(loadBridgeConfig({ url: 'https://board.example', profile: 'alice' }, env).account).toBe('alice');
  });

  it('puts the project after the origin or the profile, and under the server path', () => {
    expect(loadBridgeConfig({ url: 'https://board.example/rt', project: 'web' }, env)).toMatchObject({
      baseUrl: 'https://board.example/rt/p/web',
      serverUrl: 'https://board.example/rt',
      project: 'web',
      account: 'https://board.example/p/web',
    });
    expect(loadBridgeConfig({ url: 'https://board.example', project: 'web', profile: 'alice' }, env).account).toBe('alice/p/web');
  });

  it('reads the project from the URL (with or without /mcp) and from ROUNDTABLE_PROJECT', () => {
    for (const url of ['https://board.example/p/web', 'https://board.example/p/web/', 'https://board.example/p/web/mcp']) {
      expect(loadBridgeConfig({ url }, env)).toMatchObject({ serverUrl: 'https://board.example', project: 'web' });
    }
    expect(loadBridgeConfig({ url: 'https://board.example' }, { ROUNDTABLE_PROJECT: 'api' }).project).toBe('api');
    expect(loadBridgeConfig({ url: 'https://board.example', project: 'web' }, { ROUNDTABLE_PROJECT: 'api' }).project).toBe('web');
    expect(loadBridgeConfig({ url: 'https://board.example/p/web', project: 'web' }, env).project).toBe('web');
  });

  it('refuses a bad slug and two different projects, naming where each came from', () => {
    expect(() => loadBridgeConfig({ url: 'https://board.example', project: '-web' }, env)).toThrow(/^--project: "-web" is not a project name/);
    expect(() => loadBridgeConfig({ url: 'https://board.example', project: 'a'.repeat(41) }, env)).toThrow(/not a project name/);
    expect(() => loadBridgeConfig({ url: 'https://board.example/p/Web' }, env)).toThrow(/^--url \(its \/p\/ part\): "Web" is not a project name/);
    expect(() => loadBridgeConfig({ url: 'https://board.example/p/web' }, { ROUNDTABLE_PROJECT: 'api' })).toThrow('ROUNDTABLE_PROJECT names the project "api" but --url names "web"');
  });

  it('names the project and the profile in the login command', () => {
    expect(loginCommand(loadBridgeConfig({ url: 'https://board.example/p/web' }, env), 'linux')).toBe('roundtable-bridge login --url https://board.example --project web');
    expect(loginCommand(loadBridgeConfig({ url: 'https://board.example', project: 'web', profile: 'alice' }, env), 'linux')).toBe(
      'roundtable-bridge login --url https://board.example --project web --profile alice',
    );
  });
});
