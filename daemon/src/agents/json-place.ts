// Where JSON.parse stopped, as a line and a column, without quoting the text (it may hold a plaintext token).
// Node 20 words it "at position N", Node 22+ adds "(line X column Y)", and some messages give no place at all.

export interface JsonPlace {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units as the parser counts them. */
  readonly column: number;
}

/** The index the parser's message names; the end of the text for "Unexpected end of JSON input"; else undefined. */
function reportedIndex(message: string, length: number): number | undefined {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return Number(position);
  if (/end of JSON input/i.test(message)) return length;
  return undefined;
}

/** Whether the prefix can still begin a valid document: it parses, or fails only for running out of text. */
function viablePrefix(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const index = reportedIndex((error as Error).message, prefix.length);
    return index !== undefined && index >= prefix.length;
  }
}

function placeOf(text: string, index: number): JsonPlace {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: index - lineStart + 1 };
}

/**
 * The place of the syntax error that `error` (thrown by JSON.parse(text)) reports. A message that names no place
 * ("Unexpected token 'x', ... is not valid JSON") is placed by the longest prefix that still parses or only runs out:
 * whether a prefix is viable is monotonic (a longer prefix of a broken one is broken too), so a binary search finds it.
 */
export function jsonErrorPlace(text: string, error: Error): JsonPlace {
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(error.message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const index = reportedIndex(error.message, text.length);
  if (index !== undefined) return placeOf(text, index);
  let viable = 0;
  let broken = text.length;
  while (broken - viable > 1) {
    const middle = Math.floor((viable + broken) / 2);
    if (viablePrefix(text.slice(0, middle))) viable = middle;
    else broken = middle;
  }
  // The character at index `viable` is the first that no valid document could have there.
  return placeOf(text, viable);
}
