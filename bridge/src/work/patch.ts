// The patch of a work record: git's bytes decoded as UTF-8 (an invalid byte becomes U+FFFD) and cut at the last whole
// line within the cap, with a last line saying where; and small enough as JSON that the call stays under the board's
// body limit whatever the patch holds (a control character is 1 byte of patch but 6 of JSON).
import { LIMITS } from 'roundtable-shared';

/** The most the patch may take as a JSON string: the board takes 4 MiB a call, and the rest of the call needs room. */
export const PATCH_JSON_BYTES = 3 * 1024 * 1024;

export interface CutPatch {
  readonly patch: string;
  readonly truncated: boolean;
  /** The whole patch's size in bytes, before any cut. */
  readonly bytes: number;
}

/** The last line of a cut patch: fixed words and two numbers. */
export function cutLine(at: number, of: number): string {
  return `# roundtable: patch cut at ${at} of ${of} bytes; the files list is whole\n`;
}

/** The bytes up to and including the last newline at or before `limit` (none: nothing). */
function wholeLines(bytes: Buffer, limit: number): Buffer {
  if (bytes.length <= limit) return bytes;
  const end = bytes.lastIndexOf(0x0a, limit - 1);
  return end < 0 ? bytes.subarray(0, 0) : bytes.subarray(0, end + 1);
}

/** What the text costs as a JSON string, in UTF-8 bytes. */
export function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}

/** The control characters JSON writes as six (\u0001); the rest it escapes (\n, \t, \r, \b, \f, \", \\) take two. */
const SIX_BYTE_ESCAPE = /[\u0000-\u0007\u000b\u000e-\u001f]/;

/**
 * Whether the text fits in `maxJson` bytes as JSON. Without a character JSON writes as six, the JSON is at most twice
 * the text plus its quotes, so a patch within 1 MiB needs no second copy to measure (it would cost a 1 MB string and
 * its garbage in every submission).
 */
function fitsAsJson(text: string, bytes: number, maxJson: number): boolean {
  if (2 * bytes + 2 <= maxJson && !SIX_BYTE_ESCAPE.test(text)) return true;
  return jsonBytes(text) <= maxJson;
}

/**
 * The patch within `maxBytes` UTF-8 bytes (default LIMITS.workPatchBytes) and PATCH_JSON_BYTES of JSON. A decoded
 * U+FFFD takes 3 bytes where the invalid byte took 1, so the cut is measured again after decoding.
 */
export function cutPatch(bytes: Buffer, maxBytes: number = LIMITS.workPatchBytes, maxJson: number = PATCH_JSON_BYTES): CutPatch {
  if (bytes.length <= maxBytes) {
    const whole = bytes.toString('utf8');
    const size = Buffer.byteLength(whole, 'utf8');
    if (size <= maxBytes && fitsAsJson(whole, size, maxJson)) return { patch: whole, truncated: false, bytes: bytes.length };
  }
  // Room for the last line, whose numbers are at most as long as the whole size.
  const note = Buffer.byteLength(cutLine(bytes.length, bytes.length), 'utf8');
  let limit = Math.max(0, maxBytes - note);
  for (let round = 0; round < 20; round++) {
    const kept = wholeLines(bytes, limit);
    const text = kept.toString('utf8') + cutLine(kept.length, bytes.length);
    const size = Buffer.byteLength(text, 'utf8');
    if (size <= maxBytes && fitsAsJson(text, size, maxJson)) return { patch: text, truncated: true, bytes: bytes.length };
    // Too big once decoded or escaped: shrink in proportion, and a little more, then cut at a line again.
    const ratio = Math.min(maxBytes / size, maxJson / jsonBytes(text));
    limit = Math.max(0, Math.floor(Math.min(limit, kept.length) * ratio * 0.98) - 1);
  }
  return { patch: cutLine(0, bytes.length), truncated: true, bytes: bytes.length };
}
