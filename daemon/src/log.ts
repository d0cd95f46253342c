// The daemon's logger (pino): JSON lines on stderr, human-readable lines when stderr is a terminal.
// Never pass it a token or board text: log names, ids, codes and durations only.
import pino, { type DestinationStream, type Logger } from 'pino';
import { LineBatch } from './log-batch.js';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** For a person at a terminal: "12:00:01 INFO tool call agent=w1 tool=claim_task outcome=ok". */
function terminalLines(): DestinationStream {
  return {
    write(line: string) {
      const { time, level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const extra = Object.entries(fields)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      process.stderr.write(`${String(time).slice(11, 19)} ${LEVEL_NAMES[level as number] ?? level} ${String(msg)}${extra ? ` ${extra}` : ''}\n`);
    },
  };
}

const level = process.env['ROUNDTABLE_LOG_LEVEL'] ?? 'info';

/**
 * Not a terminal: the lines logged until the microtask queue is empty go to stderr in one write (log-batch.ts); a request
 * is answered only once its lines are written (logWritten), so no answered request lacks its line after a crash.
 */
const batch = process.stderr.isTTY ? undefined : new LineBatch(pino.destination({ fd: 2, sync: true }));

export const logger: Logger = pino(
  {
    level: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(level) ? level : 'info',
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
    // A last line of defence: these keys never reach a log line, whoever passes them.
    redact: { paths: ['token', 'authorization', '*.token', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
  },
  batch ?? terminalLines(),
);

/** Resolves once every line logged so far is written to stderr (at once on a terminal, where each is written as it comes). */
export function logWritten(): Promise<void> {
  return batch ? batch.written() : Promise.resolve();
}

type Fields = Record<string, unknown>;

/**
 * The two lines every request writes (its tool call, its request), at info, without pino's general path: their keys
 * are fixed names, ids, codes and numbers (never a token or board text), so there is nothing to redact, and the line
 * is pino's own format (level, time, the fields, msg). Elsewhere (a terminal, another level) it is pino's line.
 */
export function infoLine(msg: string, fields: Fields): void {
  if (!batch || !logger.isLevelEnabled('info')) {
    logger.info(fields, msg);
    return;
  }
  const body = JSON.stringify(fields);
  batch.write(`{"level":30,"time":"${new Date().toISOString()}",${body.length > 2 ? `${body.slice(1, -1)},` : ''}"msg":${JSON.stringify(msg)}}\n`);
}

export const log = {
  debug: (msg: string, fields?: Fields) => logger.debug(fields ?? {}, msg),
  info: (msg: string, fields?: Fields) => logger.info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => logger.warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => logger.error(fields ?? {}, msg),
};
