// The git work behind a submission (`work`) and what a call's model use cost (`usage`): the input fields submit_result
// and post_message accept, and the record get_task returns. Every text in them is agent-written data (SPEC §22).
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { isoTime, wellFormedText } from './fields.js';

/** A git object id: 40 hex digits (SHA-1) or 64 (SHA-256). */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function commitId(field: string) {
  return z
    .string({ error: `${field} must be a string` })
    .regex(COMMIT_ID, { error: `${field} must be a full git commit id: 40 or 64 lowercase hex digits` });
}

function capped(field: string, max: number) {
  return wellFormedText(field).max(max, { error: `${field} is longer than ${max} characters; the limit is ${max}` });
}

function count(field: string) {
  return z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be a whole number` })
    .min(0, { error: `${field} must be 0 or more` })
    .max(LIMITS.usageTokens, { error: `${field} must be at most ${LIMITS.usageTokens}` });
}

/** The UTF-8 size of a text, in bytes: the patch cap is in bytes, as git and the disk count it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair: one code point past U+FFFF
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** An https URL with a host name (or address) and no user name or password, and nothing but printable ASCII. */
const HTTPS_URL = /^https:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][\x21-\x7e]*)?$/;

/** A PR or merge-request link: https only, so a page never links to javascript:, data: or plain http. */
export const prUrl = capped('work.pr_url', LIMITS.workPrUrl).regex(HTTPS_URL, {
  error: 'work.pr_url must be an https:// URL with a host, no user name or password, and no spaces',
});

export const workCommitSchema = z.strictObject({
  id: commitId('work.commits: each id'),
  subject: capped('work.commits: each subject', LIMITS.workCommitSubject),
  author_time: isoTime,
});

export const workFileSchema = z.strictObject({
  path: capped('work.files: each path', LIMITS.checkedPath).min(1, { error: 'work.files: each path must not be empty' }),
  old_path: capped('work.files: each old_path', LIMITS.checkedPath).optional().describe('The name before a rename or copy'),
  status: z
    .enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed'], {
      error: 'work.files: each status must be added, modified, deleted, renamed, copied or type_changed',
    })
    .optional(),
  binary: z.boolean({ error: 'work.files: each binary must be true or false' }).optional(),
  added: count('work.files: each added').describe('Lines added (0 for a binary file)'),
  removed: count('work.files: each removed').describe('Lines removed (0 for a binary file)'),
});

/** What submit_result's `work` holds: the bridge fills it from git; an app over HTTP may send it itself. */
export const workInputSchema = z.strictObject({
  branch: capped('work.branch', LIMITS.workBranch).nullable().describe('null when HEAD is detached'),
  base: commitId('work.base').describe('Where the work starts: where the branch left the default branch, or HEAD at the claim'),
  head: commitId('work.head'),
  dirty: z.boolean({ error: 'work.dirty must be true or false' }).describe('Whether the tree had uncommitted changes'),
  commits: z
    .array(workCommitSchema, { error: 'work.commits must be a list' })
    .max(LIMITS.workCommits, { error: `work.commits has more than ${LIMITS.workCommits} entries; the limit is ${LIMITS.workCommits}` }),
  files: z
    .array(workFileSchema, { error: 'work.files must be a list' })
    .max(LIMITS.workFiles, { error: `work.files has more than ${LIMITS.workFiles} entries; the limit is ${LIMITS.workFiles}` }),
  patch: wellFormedText('work.patch')
    .refine((s) => s.length <= LIMITS.workPatchBytes && utf8Bytes(s) <= LIMITS.workPatchBytes, {
      error: `work.patch is over ${LIMITS.workPatchBytes} bytes of UTF-8; cut it there and set patch_truncated`,
    })
    .optional(),
  patch_truncated: z.boolean({ error: 'work.patch_truncated must be true or false' }).optional().describe('The patch was cut at the cap'),
  patch_bytes: z
    .number({ error: 'work.patch_bytes must be a number' })
    .int({ error: 'work.patch_bytes must be a whole number' })
    .min(0, { error: 'work.patch_bytes must be 0 or more' })
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('The whole patch\'s size before any cut'),
  pr_url: prUrl.optional(),
});
export type WorkInput = z.infer<typeof workInputSchema>;

/** What submit_result and post_message accept as `usage`: the model use the call's work cost, as the app reported it. */
export const usageInputSchema = z
  .strictObject({
    input_tokens: count('usage.input_tokens').optional(),
    output_tokens: count('usage.output_tokens').optional(),
    cached_tokens: count('usage.cached_tokens').optional().describe('Input tokens read from a prompt cache'),
    cost_usd: z
      .number({ error: 'usage.cost_usd must be a number' })
      .min(0, { error: 'usage.cost_usd must be 0 or more' })
      .max(LIMITS.usageCostUsd, { error: `usage.cost_usd must be at most ${LIMITS.usageCostUsd}` })
      .optional(),
    model: capped('usage.model', LIMITS.usageModel).optional(),
  })
  .refine((u) => Object.keys(u).some((k) => k !== 'model'), {
    error: 'usage must carry at least one of input_tokens, output_tokens, cached_tokens or cost_usd',
  });
export type UsageInput = z.infer<typeof usageInputSchema>;

/** The work record of a task's latest submission, as get_task returns it. */
export const workRecordSchema = workInputSchema.extend({
  submitted_by: z.string(),
  claim_id: z.number().int().nullable(),
  submitted_at: isoTime,
  patch_kept: z.boolean().describe('Whether the patch is kept (false when none was sent, or it was dropped)'),
  patch_dropped: z.boolean().describe('A patch was sent but is not kept: the project\'s patch total (SPEC §22); the summary stays'),
});
export type WorkRecord = z.infer<typeof workRecordSchema>;

/** Usage summed over reports. */
export const usageTotalsSchema = z.object({
  reports: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  cost_usd: z.number(),
  models: z.array(z.string()),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

