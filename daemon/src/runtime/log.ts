// The daemon's logger (pino): JSON lines on stderr for files and services; readable lines (pino-pretty, loaded only
// then) when stderr is a terminal, with the per-request lines kept at debug there so they do not bury the banner.
// Never pass it a token or board text: log names, ids, codes and durations only.
import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import { LineBatch } from './log-batch.js';

/**
 * A person reads the log: stderr is a terminal. Judged on stderr, where the lines go (`roundtable start > out.txt`
 * still shows them readably on the terminal; `2> daemon.log` writes JSON to the file).
 */
const TERMINAL = process.stderr.isTTY === true;

/** For a person at a terminal: "12:00:01 INFO: board started url=..." (pino-pretty, synchronous, so no line is lost at exit). */
function terminalLines(): DestinationStream {
  // Required only here, so a service never loads the formatter (docs/DECISIONS.md, issue 31).
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return pretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.hasColors?.() ?? false,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

const level = process.env['ROUNDTABLE_LOG_LEVEL'] ?? 'info';

/**
 * Not a terminal: the lines logged until the microtask queue is empty go to stderr in one write (log-batch.ts); a request
 * is answered only once its lines are written (logWritten), so no answered request lacks its line after a crash.
 */
const batch = TERMINAL ? undefined : new LineBatch(pino.destination({ fd: 2, sync: true }));

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
 * The two lines every request writes (its tool call, its request). For files and services: at info, without pino's
 * general path: their keys are fixed names, ids, codes and numbers (never a token or board text), so there is nothing
 * to redact, and the line is pino's own format (level, time, the fields, msg). On a terminal: at debug (one line per
 * request would scroll the start banner and its tokens away; ROUNDTABLE_LOG_LEVEL=debug shows them).
 */
export function requestLine(msg: string, fields: Fields): void {
  if (!batch) {
    logger.debug(fields, msg);
    return;
  }
  if (!logger.isLevelEnabled('info')) {
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
