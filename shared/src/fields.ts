// Field schemas shared by several tools; each failure message names the field and the limit.
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { PRIORITIES } from './states.js';

// A lone UTF-16 surrogate (a JSON escape such as "\ud800" without its pair) is not Unicode text: stored, it would
// become U+FFFD, three bytes per unit, past every length limit. In /u mode a paired surrogate is one code point, not Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** A string holding only well-formed Unicode; every text argument of every tool is built on it. */
export function wellFormedText(field: string, notAString = `${field} must be a string`) {
  return z
    .string({ error: notAString })
    .refine((s) => !LONE_SURROGATE.test(s), {
      error: `${field} holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair), which is not Unicode text; send well-formed text and call again`,
    });
}

/** Non-blank text of at most `max` characters; longer text is rejected, never truncated. */
export function boundedText(field: string, max: number) {
  return wellFormedText(field)
    .min(1, { error: `${field} must not be empty` })
    .max(max, { error: (issue) => `${field} is ${String((issue.input as string).length)} characters; the limit is ${max}. Shorten it and call again` })
    .refine((s) => /\S/.test(s), { error: `${field} must not be blank` });
}

/** Optional text that may be empty, bounded like boundedText. */
export function optionalText(field: string, max: number) {
  return wellFormedText(field)
    .max(max, { error: (issue) => `${field} is ${String((issue.input as string).length)} characters; the limit is ${max}. Shorten it and call again` })
    .optional();
}

/** A row id argument (task_id, claim_id, ...): a whole number from 1 to LIMITS.maxId, the range the error states. */
export function rowId(field: string, what: string) {
  const range = `${field} must be a whole number from 1 to ${LIMITS.maxId}`;
  return z
    .number({ error: `${field} must be a number (${what})` })
    .int({ error: `${range} (${what})` })
    .min(1, { error: range })
    .max(LIMITS.maxId, { error: range });
}

export const taskId = rowId('task_id', 'the id from create_task or list_tasks');

export const claimId = rowId('claim_id', 'the claim_id that claim_task returned');

/**
 * A skill is a plain name: it is matched by equality, listed to every agent and shown on the web page, so it carries
 * no spaces, line breaks, control characters or escape sequences (an ANSI escape would repaint a terminal that prints
 * it). The rule is stated in SPEC section 1; agents.json and required_skills share it.
 */
export const SKILL_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9+#._/-]{0,${LIMITS.skill - 1}}$`);
export const SKILL_RULE = `1-${LIMITS.skill} of the characters A-Z a-z 0-9 + # . _ / - (no spaces, line breaks or control characters), starting with a letter or digit, e.g. "python" or "c++"`;

export const skill = boundedText('each skill', LIMITS.skill).regex(SKILL_PATTERN, { error: `each skill must be ${SKILL_RULE}` });

export const agentName = boundedText('agent name', LIMITS.assigneeFilter);

export const isoTime = z.string().describe('ISO 8601 time in UTC');

/** The tasks a task waits for: up to LIMITS.dependsOn ids, each of an existing task that is not cancelled. */
export const dependsOn = z
  .array(
    rowId('depends_on: each entry', 'a task id'),
    { error: 'depends_on must be a list of task ids, e.g. [3, 4]' },
  )
  .max(LIMITS.dependsOn, { error: `depends_on has more than ${LIMITS.dependsOn} entries; the limit is ${LIMITS.dependsOn}` });

export const priority = z.enum(PRIORITIES, { error: `priority must be one of ${PRIORITIES.join(', ')}` });
