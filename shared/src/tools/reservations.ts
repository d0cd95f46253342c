// Tools for path reservations: the files a claim will touch, held until the claim ends, and who holds what.
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { isoTime, optionalText, taskId, wellFormedText } from '../fields.js';
import { checkedPath, pathPattern, reservedPatternProblem } from '../path-patterns.js';
import { untrustedWarning } from '../schemas.js';
import { defineTool } from './define.js';

const OVERLAP = 'Repository-relative patterns: * within the last name (src/*.ts), ** any folders, first or last only (**/*.md, src/**); src/auth covers src/auth/**.';

export const reservationSchema = z.object({
  id: z.number().int(),
  task_id: z.number().int(),
  claim_id: z.number().int().describe('The claim it belongs to: it ends when that claim ends'),
  agent: z.string(),
  scope: z.string().nullable().describe('The repository it is in (null: the default scope)'),
  pattern: z.string(),
  exclusive: z.boolean(),
  reason: z.string().nullable(),
  created_at: isoTime,
});
export type Reservation = z.infer<typeof reservationSchema>;

/** A reservation as shown beside a claim (members, the live page). */
export const heldPathSchema = reservationSchema.pick({ pattern: true, scope: true, exclusive: true });

const scope = wellFormedText('scope')
  .min(1, { error: 'scope must not be empty; leave it out for the default scope' })
  .max(LIMITS.reservationScope, { error: `scope is longer than ${LIMITS.reservationScope} characters; use a short repository name` })
  .optional()
  .describe('repository; absent: default');

export const reservePaths = defineTool({
  name: 'reserve_paths',
  description: `Reserve files your held task will touch, before editing, until the claim ends. exclusive (default) keeps others out; shared, only exclusive ones. All or nothing: an overlap with another's is a conflict naming the holder. ${OVERLAP}`,
  input: z.strictObject({
    task_id: taskId,
    paths: z
      .array(pathPattern('path'), { error: 'paths must be a list of repository-relative paths or patterns' })
      .min(1, { error: 'paths: give at least one path or pattern' })
      .max(LIMITS.reservePaths, { error: `paths has more than ${LIMITS.reservePaths} entries; the limit is ${LIMITS.reservePaths} a call. Reserve a folder pattern such as src/auth/** instead` }),
    exclusive: z.boolean({ error: 'exclusive must be true or false' }).optional(),
    reason: optionalText('reason', LIMITS.reservationReason),
    scope,
  }),
  output: z.object({ reservations: z.array(reservationSchema).describe("All of this task's reservations now"), untrusted_content_warning: untrustedWarning }),
  mutates: true,
});

export const releasePaths = defineTool({
  name: 'release_paths',
  description: 'Release reservations of a task you hold: the given patterns, or all. All or nothing.',
  input: z.strictObject({
    task_id: taskId,
    paths: z
      .array(pathPattern('path', reservedPatternProblem), { error: 'paths must be a list of patterns you reserved' })
      .min(1, { error: 'paths: give at least one pattern, or leave paths out to release all' })
      .max(LIMITS.reservePaths, { error: `paths has more than ${LIMITS.reservePaths} entries; the limit is ${LIMITS.reservePaths}, or leave paths out to release all` })
      .optional(),
    scope,
  }),
  output: z.object({
    released: z.number().int(),
    reservations: z.array(reservationSchema).describe("The task's reservations left"),
    untrusted_content_warning: untrustedWarning,
  }),
  mutates: true,
});

export const listReservations = defineTool({
  name: 'list_reservations',
  description: `Live reservations, oldest first, in one scope or overlapping path. Page: next_cursor as cursor. ${OVERLAP}`,
  input: z.strictObject({
    scope,
    path: pathPattern('path').optional(),
    limit: z
      .number({ error: 'limit must be a number' })
      .int({ error: 'limit must be a whole number' })
      .min(1, { error: `limit must be between 1 and ${LIMITS.reservationsListMax}` })
      .max(LIMITS.reservationsListMax, { error: `limit must be between 1 and ${LIMITS.reservationsListMax}` })
      .optional(),
    cursor: wellFormedText('cursor', 'cursor must be the next_cursor string of an earlier page')
      .max(LIMITS.cursor, { error: `cursor is longer than ${LIMITS.cursor} characters; pass back the next_cursor of an earlier page unchanged` })
      .optional(),
  }),
  output: z.object({ reservations: z.array(reservationSchema), next_cursor: z.string().nullable(), untrusted_content_warning: untrustedWarning }),
  mutates: false,
});

export const checkPaths = defineTool({
  name: 'check_paths',
  description: `For each file (literal names: * is a *), whether another agent holds it exclusively, who, on which task.`,
  input: z.strictObject({
    paths: z
      .array(checkedPath('path'), { error: 'paths must be a list of repository-relative file names' })
      .min(1, { error: 'paths: give at least one path' })
      .max(LIMITS.checkPaths, { error: `paths has more than ${LIMITS.checkPaths} entries; the limit is ${LIMITS.checkPaths} a call. Split the list` })
      .superRefine((paths, ctx) => {
        const chars = paths.reduce((n, p) => n + p.length, 0);
        if (chars > LIMITS.checkPathsChars) {
          ctx.addIssue({ code: 'custom', message: `paths hold ${chars} characters in all; the limit is ${LIMITS.checkPathsChars} a call. Split the list` });
        }
      }),
    scope,
  }),
  output: z.object({
    paths: z.array(
      z.object({
        path: z.string(),
        held: z.boolean().describe('Another agent holds an exclusive reservation overlapping it'),
        holders: z
          .array(reservationSchema.pick({ agent: true, task_id: true, claim_id: true, pattern: true }))
          .describe(`Up to ${LIMITS.holdersPerPath} of the reservations holding it`),
      }),
    ),
    untrusted_content_warning: untrustedWarning,
  }),
  mutates: false,
});
