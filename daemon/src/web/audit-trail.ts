// The audit log for the project's owners (issue 36): one row per tool call (who, which tool, the task id, the outcome,
// the face), filtered and paged newest first, and whole as CSV or JSON lines. No board text is in a row, and none is
// added here. Anyone else is refused with 403 naming the rule.
import type { Agent } from '../agents/directory.js';
import { isOwner } from '../board/rules.js';
import { Forbidden, InvalidInput } from '../errors.js';
import type { AuditEntry, AuditQuery, BoardStore, Face } from '../store/store.js';
import { csvRow, AUDIT_CSV_COLUMNS } from './audit-export.js';
import { isoTimeOf, nameOf, pageSizeOf, type QueryText } from './history-query.js';

export const AUDIT_PAGE = 50;
export const AUDIT_PAGE_MAX = 200;
/** Rows per read while a download streams: memory stays flat however long the log is. */
const EXPORT_READ = 1000;
const FACES: readonly Face[] = ['mcp', 'api', 'web'];

export interface AuditPage {
  readonly entries: AuditEntry[];
  /** The older page (`before=`); null when there is none. */
  readonly next: string | null;
}

export type AuditFormat = 'csv' | 'jsonl';

export function mayReadAudit(agent: Agent): boolean {
  return isOwner(agent);
}

export function parseAuditQuery(query: QueryText): Omit<AuditQuery, 'limit'> & { limit: number } {
  const before = query['before'];
  if (before !== undefined && !/^[1-9][0-9]{0,15}$/.test(before)) throw new InvalidInput('before: send the next cursor of the previous page (a positive whole number)');
  const face = query['face'];
  if (face !== undefined && face !== '' && !FACES.includes(face as Face)) throw new InvalidInput(`face: send one of ${FACES.join(', ')}`);
  const filters = {
    agent: nameOf(query, 'agent'),
    tool: nameOf(query, 'tool'),
    outcome: nameOf(query, 'outcome'),
    face: face === '' ? undefined : (face as Face | undefined),
    since: isoTimeOf(query, 'since'),
    until: isoTimeOf(query, 'until'),
  };
  return {
    limit: pageSizeOf(query, AUDIT_PAGE, AUDIT_PAGE_MAX),
    ...(before !== undefined && { beforeId: Number(before) }),
    ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)),
  };
}

export class AuditTrail {
  constructor(private readonly store: Pick<BoardStore, 'readAudit'>) {}

  async page(viewer: Agent, text: QueryText): Promise<AuditPage> {
    requireAuditReader(viewer);
    const query = parseAuditQuery(text);
    const rows = await this.store.readAudit({ ...query, limit: query.limit + 1 });
    const entries = rows.slice(0, query.limit);
    return { entries, next: rows.length > query.limit ? String(entries.at(-1)!.id) : null };
  }

  /** Every row the filters match, newest first, as a stream of text: read a page at a time while the client takes it. */
  download(viewer: Agent, text: QueryText, format: AuditFormat): ReadableStream<Uint8Array> {
    requireAuditReader(viewer);
    const { limit: _limit, ...query } = parseAuditQuery(text);
    const encoder = new TextEncoder();
    let beforeId = query.beforeId;
    let started = false;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const head = !started && format === 'csv' ? csvRow(AUDIT_CSV_COLUMNS) : '';
        started = true;
        const rows = await this.store.readAudit({ ...query, ...(beforeId !== undefined && { beforeId }), limit: EXPORT_READ });
        const body = rows.map((row) => (format === 'csv' ? csvRow(AUDIT_CSV_COLUMNS.map((column) => row[column])) : `${JSON.stringify(row)}\n`)).join('');
        if (head + body !== '') controller.enqueue(encoder.encode(head + body));
        if (rows.length < EXPORT_READ) controller.close();
        else beforeId = rows.at(-1)!.id;
      },
    });
  }
}

function requireAuditReader(viewer: Agent): void {
  if (!mayReadAudit(viewer)) throw new Forbidden(`the audit log is shown to the project's owners only; you are ${viewer.name}, a ${viewer.role}`);
}
