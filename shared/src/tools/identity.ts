// Tools that tell an agent who it is and who else is on the board.
import { z } from 'zod';
import { agentSchema } from '../schemas.js';
import { TOOLSETS } from './access.js';
import { defineTool } from './define.js';

export const whoami = defineTool({
  name: 'whoami',
  description: 'Your name, role, skills, board and toolsets (null: all). Call it first: your role decides your tools.',
  input: z.strictObject({}),
  output: z.object({
    ...agentSchema.shape,
    board: z.string(),
    toolsets: z.array(z.enum(TOOLSETS)).nullable().describe('toolsets agents.json narrows your tools to; null: all'),
  }),
  mutates: false,
  // No listed output schema (issue 32): its fields are in the description, and the bridge reads the role from the
  // structuredContent every answer carries.
});

export const listAgents = defineTool({
  name: 'list_agents',
  description: 'Every agent with role, skills and last_seen (null: never called).',
  input: z.strictObject({}),
  output: z.object({
    agents: z.array(z.object({ ...agentSchema.shape, last_seen: z.string().nullable() })),
  }),
  mutates: false,
});
