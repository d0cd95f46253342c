// Every tool the board serves, each defined once; the daemon and the bridge both list them from here.
import { listAgents, whoami } from './identity.js';
import {
  cancelTask,
  claimTask,
  createTask,
  getTask,
  listTasks,
  postMessage,
  releaseTask,
  reviewTask,
  submitResult,
  updateTask,
} from './tasks.js';
import { deliveryStatus, post, readLog, readUnread } from './room.js';
import { members, waitForActivity } from './presence.js';
import { checkPaths, listReservations, releasePaths, reservePaths } from './reservations.js';
import { search } from './search.js';
import type { ToolDefinition } from './define.js';

export * from './define.js';
export * from './access.js';
export { whoami, listAgents, createTask, listTasks, getTask, claimTask, releaseTask, postMessage, submitResult, reviewTask, cancelTask };
export { post, readUnread, readLog, deliveryStatus, members, waitForActivity };
export { updateTask };
export { roomMessageSchema, type RoomMessage } from './room.js';
export { WAIT_CATEGORIES, type WaitCategory } from './presence.js';
export { reservePaths, releasePaths, listReservations, checkPaths };
export { reservationSchema, heldPathSchema, type Reservation } from './reservations.js';
export { search, searchHitSchema, SEARCH_SCOPES, SEARCH_FIELDS, SEARCH_MARK, type SearchScope, type SearchHit } from './search.js';

export const TOOLS = [
  whoami,
  listAgents,
  createTask,
  listTasks,
  getTask,
  search,
  claimTask,
  releaseTask,
  postMessage,
  submitResult,
  reviewTask,
  cancelTask,
  post,
  readUnread,
  readLog,
  deliveryStatus,
  members,
  waitForActivity,
  updateTask,
  reservePaths,
  releasePaths,
  listReservations,
  checkPaths,
] as const satisfies readonly ToolDefinition[];

export type ToolName = (typeof TOOLS)[number]['name'];

const byName = new Map<string, ToolDefinition>(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
