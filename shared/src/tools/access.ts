// Who may call each tool and which toolset it belongs to, declared once: tools/list is narrowed from here on both faces.
import type { Role } from '../states.js';

/**
 * The roles that can use each tool at all. The daemon's rules (daemon/src/board/rules.ts) stay the authority on every
 * call; a test calls each tool a role does not see and expects the rules' `forbidden`, so the two cannot drift apart.
 * Roles are bound to modes (leader and worker: role mode; peer: peer mode; observer and owner: either), so a role says
 * enough.
 */
const EVERY_ROLE = ['leader', 'worker', 'peer', 'observer', 'owner'] as const satisfies readonly Role[];
const WRITERS = ['leader', 'worker', 'peer', 'owner'] as const satisfies readonly Role[];
/** Who plans and reviews: the leader, a peer, and an owner (a person steering the board, in either mode). */
const LEADS = ['leader', 'peer', 'owner'] as const satisfies readonly Role[];
/** An owner never claims, so never submits or reserves paths. */
const CLAIMERS = ['worker', 'peer'] as const satisfies readonly Role[];

/** The named groups a list can be narrowed to (agents.json "toolsets", the bridge's --toolsets). */
export const TOOLSETS = ['tasks', 'room', 'presence', 'reservations'] as const;
export type Toolset = (typeof TOOLSETS)[number];

interface ToolAccess {
  readonly roles: readonly Role[];
  /** Absent: listed whatever the toolsets (whoami, how an agent learns what it may do). */
  readonly toolset?: Toolset;
}

export const TOOL_ACCESS = {
  whoami: { roles: EVERY_ROLE },
  list_agents: { roles: EVERY_ROLE, toolset: 'presence' },
  create_task: { roles: LEADS, toolset: 'tasks' },
  list_tasks: { roles: EVERY_ROLE, toolset: 'tasks' },
  get_task: { roles: EVERY_ROLE, toolset: 'tasks' },
  // Reads only: each caller finds what it may read (the room's messages to it, by it, or to all).
  search: { roles: EVERY_ROLE, toolset: 'tasks' },
  claim_task: { roles: CLAIMERS, toolset: 'tasks' },
  // The holder releases its own; the leader or an owner (peer mode: the creator, or an owner) releases a crashed agent's.
  release_task: { roles: WRITERS, toolset: 'tasks' },
  post_message: { roles: WRITERS, toolset: 'tasks' },
  submit_result: { roles: CLAIMERS, toolset: 'tasks' },
  review_task: { roles: LEADS, toolset: 'tasks' },
  cancel_task: { roles: LEADS, toolset: 'tasks' },
  update_task: { roles: LEADS, toolset: 'tasks' },
  post: { roles: WRITERS, toolset: 'room' },
  // Marks messages read, but only the caller's own: a reading tool.
  read_unread: { roles: EVERY_ROLE, toolset: 'room' },
  read_log: { roles: EVERY_ROLE, toolset: 'room' },
  delivery_status: { roles: EVERY_ROLE, toolset: 'room' },
  members: { roles: EVERY_ROLE, toolset: 'presence' },
  wait_for_activity: { roles: EVERY_ROLE, toolset: 'presence' },
  reserve_paths: { roles: CLAIMERS, toolset: 'reservations' },
  release_paths: { roles: CLAIMERS, toolset: 'reservations' },
  list_reservations: { roles: EVERY_ROLE, toolset: 'reservations' },
  check_paths: { roles: EVERY_ROLE, toolset: 'reservations' },
} as const satisfies Record<string, ToolAccess>;

export type AccessName = keyof typeof TOOL_ACCESS;

/** Who is asking for the list: its role if known, and the toolsets it is narrowed to, if any. */
export interface ListAudience {
  readonly role?: Role | undefined;
  /** Absent or null: every toolset. Several sources narrow by intersection (see narrowToolsets). */
  readonly toolsets?: readonly Toolset[] | null | undefined;
}

/** Whether a tool shows in the list of this audience. An unknown tool name is never shown. */
export function toolVisible(name: string, audience: ListAudience): boolean {
  const access = (TOOL_ACCESS as Record<string, ToolAccess>)[name];
  if (!access) return false;
  if (audience.role !== undefined && !access.roles.includes(audience.role)) return false;
  if (audience.toolsets && access.toolset !== undefined && !audience.toolsets.includes(access.toolset)) return false;
  return true;
}

/** The toolsets both narrowings allow; null when neither narrows. */
export function narrowToolsets(a: readonly Toolset[] | null | undefined, b: readonly Toolset[] | null | undefined): readonly Toolset[] | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a.filter((set) => b.includes(set));
}

export function isToolset(value: string): value is Toolset {
  return (TOOLSETS as readonly string[]).includes(value);
}
