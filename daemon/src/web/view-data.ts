// What the web page reads: the board at a glance and one task in full, straight from the board's parts.
import { FINAL_STATUSES, LIMITS, search, TASK_STATUSES, UNTRUSTED_CONTENT_WARNING, type TaskStatus, type TaskSummary } from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import type { Board } from '../board/board.js';
import type { Presence } from '../board/presence.js';
import { skillsNoClaimerHas } from '../board/claimability.js';
import { needsOf, type Needs } from '../board/needs.js';
import { progressOf, type Progress } from '../board/progress.js';
import { mayActOnPage } from '../board/rules.js';
import type { Room } from '../board/room.js';
import { parseInput } from '../board/dispatch.js';
import { searchBoard } from '../board/search.js';
import type { BoardStore } from '../store/store.js';

/** The board's parts the page reads through. */
export interface ViewSources {
  readonly board: Board;
  readonly room: Room;
  readonly presence: Presence;
}

export interface BoardViewOptions extends ViewSources {
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly boardName: () => string;
}

/** Every unfinished task is shown, up to this many per state; past it the page says how many more there are. */
export const OPEN_STATE_CAP = 500;
/** The newest finished (done, cancelled) tasks shown. */
export const FINAL_SHOWN = 50;
export const ROOM_SHOWN = 50;
const PAGE = 100;
/** Messages and history rows in one page of the task panel; the page loads older ones on request. */
export const DETAIL_PAGE = LIMITS.taskItemsMax;

/** Reads for a person watching, not tool calls: no audit row, no tool rate limit, no room cursor moved. */
export class BoardView {
  constructor(private readonly options: BoardViewOptions) {}

  async state(agent: Agent) {
    const { store, room, presence } = this.options;
    const [tasks, counts, members, log] = await Promise.all([
      this.tasks(),
      store.countTasksByStatus(),
      presence.members(agent, {}),
      room.readLog(agent, { limit: ROOM_SHOWN }),
    ]);
    const directory = this.options.agents();
    return {
      board: this.options.boardName(),
      mode: directory.mode,
      // Whether the page shows its forms and buttons: only an owner's session acts (rules.ts requirePageActor).
      me: { name: agent.name, role: agent.role, acts: mayActOnPage(agent) },
      tasks,
      // Read from the agents in force on every state, so a reload that gives a worker the skill clears the mark.
      unclaimable: tasks.flatMap((task) => {
        const missing = skillsNoClaimerHas(task, directory);
        return missing ? [{ id: task.id, missing_skills: missing }] : [];
      }),
      counts,
      members: members.members,
      room: log.messages,
      untrusted_content_warning: UNTRUSTED_CONTENT_WARNING,
    };
  }

  /**
   * The task with the newest page of its messages and history, or the older page a cursor points at; its work record
   * with the patch, which the page shows as a diff (an agent's get_task leaves it out unless asked), unless the page
   * says it has it.
   */
  /** The Find box (issue 36): the search tool's answer for this person, its arguments checked as the tool's are. */
  async search(agent: Agent, args: Record<string, unknown>) {
    return searchBoard(this.options.store, agent, parseInput(search, args) as Parameters<typeof searchBoard>[2]);
  }

  async task(agent: Agent, taskId: number, older: { messagesCursor?: string; historyCursor?: string; withoutPatch?: boolean } = {}) {
    return this.options.board.getTask(agent, {
      task_id: taskId,
      messages_limit: DETAIL_PAGE,
      history_limit: DETAIL_PAGE,
      include_patch: older.withoutPatch !== true,
      ...(older.messagesCursor !== undefined && { messages_cursor: older.messagesCursor }),
      ...(older.historyCursor !== undefined && { history_cursor: older.historyCursor }),
    });
  }

  /** What needs this person now (board/needs.ts), for the page's list at the top and its title's count. */
  async needs(agent: Agent): Promise<Needs> {
    return needsOf(this.options.store, { agent, mode: this.options.agents().mode });
  }

  /** The project's progress over the last `days` UTC days (board/progress.ts). */
  async progress(days: number): Promise<Progress> {
    return progressOf(this.options.store, days);
  }

  private async tasks(): Promise<TaskSummary[]> {
    const unfinished = TASK_STATUSES.filter((s) => !FINAL_STATUSES.includes(s));
    const [open, finished] = await Promise.all([
      Promise.all(unfinished.map((status) => this.allIn(status))),
      Promise.all(FINAL_STATUSES.map((status) => this.options.store.latestTasks(status, FINAL_SHOWN))),
    ]);
    // The newest finished tasks across done and cancelled together.
    const latest = finished.flat().sort((a, b) => b.id - a.id).slice(0, FINAL_SHOWN);
    return [...open.flat(), ...latest];
  }

  private async allIn(status: TaskStatus): Promise<TaskSummary[]> {
    const tasks: TaskSummary[] = [];
    let afterId = 0;
    while (tasks.length < OPEN_STATE_CAP) {
      const page = await this.options.store.listTasks({ status, afterId, limit: Math.min(PAGE, OPEN_STATE_CAP - tasks.length) });
      tasks.push(...page.tasks);
      if (page.lastId === null) break;
      afterId = page.lastId;
    }
    return tasks;
  }
}
