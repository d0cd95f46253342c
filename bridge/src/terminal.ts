// Talking to a person at a terminal, for the login, logout, status and guard commands only.
// While serving MCP nothing may write to stdout but the MCP transport, so this module is never used then.

/**
 * Characters a terminal acts on rather than shows: C0 and C1 controls (U+0085 next line, U+009B CSI starts an
 * escape sequence on many terminals), DEL, the line and paragraph separators, and the bidirectional controls that
 * can make a line read other than it is. A backslash is escaped too, so that every escape is unambiguous.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_FOR_TERMINAL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;

/** Text as it may be printed: each character a terminal would act on written as \uXXXX, a backslash as \\. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, (c) => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Reads a secret from the terminal without echoing it. */
export async function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new Error('no terminal to prompt on; pipe the token in with --token-stdin');
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (result: string | Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(value);
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
