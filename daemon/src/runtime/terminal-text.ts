// Text a user typed, shown back on their terminal: control characters, bidi overrides and line separators are escaped,
// so a refused name cannot set the terminal's title, move its cursor or reorder what a message shows (issue 31).

/** C0 and C1 controls, DEL, the bidi marks, embeddings, overrides and isolates, and the Unicode line separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_LINE_BREAKS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every unsafe character as a \xNN or \uNNNN escape. `keepLineBreaks` leaves "\n" alone, for a whole
 * message of ours (a stack, a report) that may quote input; input itself is shown with `quoted`.
 */
export function escapeControls(text: string, options: { readonly keepLineBreaks?: boolean } = {}): string {
  return text.replace(options.keepLineBreaks ? UNSAFE_BUT_LINE_BREAKS : UNSAFE, escaped);
}

/** Input in double quotes, as a message quotes it: its quotes and backslashes escaped too, so the quoting cannot be closed early. */
export function quoted(input: string): string {
  return `"${escapeControls(input.replace(/[\\"]/g, '\\$&'))}"`;
}
