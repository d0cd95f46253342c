// The logger of the bridge and the worker. stdout carries only MCP, so every log line goes to stderr. Never pass it a token.

let verbose = process.env['ROUNDTABLE_BRIDGE_DEBUG'] === '1';
let program = 'roundtable-bridge';

/** Names the command in every line (the bridge and the worker share this logger). */
export function setProgram(name: string): void {
  program = name;
}

export function setVerbose(on: boolean): void {
  verbose = on;
}

function write(level: string, msg: string, fields?: Record<string, unknown>): void {
  const extra = fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
  process.stderr.write(`${program} ${level}: ${msg}${extra}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => verbose && write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
