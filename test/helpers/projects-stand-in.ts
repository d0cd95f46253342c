// A stand-in for a daemon that serves several projects (issue 33), for the bridge's side until the daemon's lands:
// /p/SLUG/api/v1/... and the unprefixed /api/v1/... answer as the daemon does, every request's path is recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { standInServer, type StandIn } from './net.js';

export interface StandInAgent {
  readonly project: string;
  readonly name: string;
}

export interface ProjectsStandIn extends StandIn {
  /** "METHOD /path" of every request, in order of arrival. */
  readonly requests: string[];
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/**
 * The daemon's door as the issue states it: an unknown token gets 401; a known token on another project's URL gets
 * 403 forbidden, the same whether or not that project exists; the unprefixed routes serve the token's own project.
 * Behind it: whoami answers, create_task is refused by a board rule (403 forbidden too, as the daemon's rules answer),
 * check_paths finds nothing held, the heartbeat and the instance lease succeed. GET /status needs no token.
 */
export async function projectsStandIn(agents: ReadonlyMap<string, StandInAgent>): Promise<ProjectsStandIn> {
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    requests.push(`${req.method} ${path}`);
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && path === '/status') return json(res, 200, { ok: true, board: 'stand-in', version: '0.0.0' });
      const route = /^(?:\/p\/([^/]+))?\/api\/v1\/(.+)$/.exec(path);
      if (!route) return json(res, 404, { error: { code: 'not_found', message: 'no such route' } });
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const agent = bearer === undefined ? undefined : agents.get(bearer);
      if (!agent) return json(res, 401, { error: { code: 'unauthorized', message: 'unknown token' } });
      if (route[1] !== undefined && route[1] !== agent.project) {
        return json(res, 403, { error: { code: 'forbidden', message: 'this token has no role in the project of this URL' } });
      }
      const rest = route[2]!;
      if (rest === 'tools/whoami') return json(res, 200, { name: agent.name, role: 'worker', skills: [], board: agent.project, toolsets: null });
      if (rest === 'tools/create_task') return json(res, 403, { error: { code: 'forbidden', message: `only the leader or an owner may create tasks; you are ${agent.name}, a worker` } });
      if (rest === 'tools/check_paths') return json(res, 200, { paths: [] });
      if (rest === 'heartbeat') return json(res, 200, { leases: [], lease_ttl_s: 60, heartbeat_interval_s: 20 });
      if (rest.startsWith('instances/')) return json(res, 200, {});
      return json(res, 404, { error: { code: 'not_found', message: 'the stand-in has no such tool' } });
    });
  };
  return { ...(await standInServer(handler)), requests };
}
