// Tools that tell an agent who it is and who else is on the board.
import { z } from 'zod';
import { agentSchema } from '../schemas.js';
import { defineTool } from './define.js';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description:
    'Returns your agent name, role (leader or worker) and skills, as the board knows them from your token. Call it first to learn what you may do.',
  input: z.strictObject({}),
  output: z.object({ ...agentSchema.shape, board: z.string() }),
  mutates: false,
});

export const listAgents = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description:
    'Lists every agent on the board with its role, skills and when it last called a tool (last_seen, null if never).',
  input: z.strictObject({}),
  output: z.object({
    agents: z.array(z.object({ ...agentSchema.shape, last_seen: z.string().nullable() })),
  }),
  mutates: false,
});
