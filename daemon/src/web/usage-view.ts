// What the work cost, for the page's Cost view (GET /view/usage, issue 35): the store's usage per project, per agent
// and per task, and the project's agents that reported none. Model names and titles are agent text: shown as text only.
import type { UsageTotals } from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';

/** The store's read (BoardStore.usageSummary). */
export interface UsageSource {
  usageSummary(): Promise<{
    readonly project: UsageTotals;
    readonly agents: ReadonlyArray<{ readonly agent: string } & UsageTotals>;
    readonly tasks: ReadonlyArray<{ readonly task_id: number; readonly title: string } & UsageTotals>;
  }>;
}

export interface UsageViewOptions {
  readonly store: UsageSource;
  readonly agents: () => AgentDirectory;
}

/** Who does the work and so may report its cost: owners and observers are people watching, who make no model calls here. */
function reports(agent: Agent): boolean {
  return agent.role !== 'owner' && agent.role !== 'observer';
}

export class UsageView {
  constructor(private readonly options: UsageViewOptions) {}

  /** Every signed-in session reads it: what a project's agents reported costs no secret of any one of them. */
  async read() {
    const summary = await this.options.store.usageSummary();
    const reported = new Set(summary.agents.filter((a) => a.reports > 0).map((a) => a.agent));
    const silent = this.options.agents().list().filter((agent) => reports(agent) && !reported.has(agent.name)).map((agent) => agent.name).sort();
    return { project: summary.project, agents: summary.agents, tasks: summary.tasks, silent };
  }
}
