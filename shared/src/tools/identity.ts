// Tools that tell an agent who it is and who else is on the board.
import { z } from 'zod';
import { agentSchema } from '../schemas.js';
import { TOOLSETS } from './access.js';
import { defineTool } from './define.js';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: 'Your name, role and skills, from your token. Call it first: your role decides which tools you may use.',
  input: z.strictObject({}),
  output: z.object({
    ...agentSchema.shape,
    board: z.string(),
    toolsets: z.array(z.enum(TOOLSETS)).nullable().describe('the toolsets agents.json narrows your tool list to; null: all'),
  }),
  mutates: false,
  // Small, and what a client program branches on (the bridge learns the role for its tool list from it).
  listsOutput: true,
});

export const listAgents = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description: 'Every agent on the board with role, skills and last_seen (null: never called). Use it to pick an assignee.',
  input: z.strictObject({}),
  output: z.object({
    agents: z.array(z.object({ ...agentSchema.shape, last_seen: z.string().nullable() })),
  }),
  mutates: false,
});
