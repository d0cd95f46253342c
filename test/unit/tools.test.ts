// The tool contract in shared/: twenty-three tools, strict inputs, portable schemas.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, listedTool, listedTools, listedToolsFor, narrowToolsets, TOOL_ACCESS, TOOLS } from 'roundtable-shared';

it('defines the twenty-three board tools once each', () => {
  const names = TOOLS.map((t) => t.name);
  expect(names).toHaveLength(23);
  expect(new Set(names).size).toBe(23);
});

it('every input schema refuses unknown arguments', () => {
  for (const tool of listedTools()) expect(tool.inputSchema['additionalProperties'], tool.name).toBe(false);
});

it('no schema uses a type array (single-type dialects such as Gemini reject them)', () => {
  const typeArrays: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' && Array.isArray(value)) typeArrays.push(path);
      walk(value, `${path}.${key}`);
    }
  };
  for (const tool of listedTools()) walk(tool, tool.name);
  expect(typeArrays).toEqual([]);
});

it('every output that carries board text declares the untrusted-content warning', () => {
  const withText = TOOLS.filter((t) => !['whoami', 'list_agents', 'delivery_status', 'wait_for_activity'].includes(t.name));
  for (const tool of withText) expect(Object.keys(tool.output.shape), tool.name).toContain('untrusted_content_warning');
});

it('every tool declares who may call it, and the access table names no other tool', () => {
  expect(Object.keys(TOOL_ACCESS).sort()).toEqual(TOOLS.map((t) => t.name).sort());
});

it('lists no output schema and no title (issue 32: each cost context on every turn), and no safe-integer bounds anywhere', () => {
  expect(listedTools().filter((t) => t.outputSchema).map((t) => t.name)).toEqual([]);
  expect(listedTools().filter((t) => 'title' in t).map((t) => t.name)).toEqual([]);
  expect(JSON.stringify(listedTools())).not.toMatch(/9007199254740991/);
  // Bounds a tool sets itself stay.
  const listTasks = listedTools().find((t) => t.name === 'list_tasks')!;
  expect((listTasks.inputSchema['properties'] as Record<string, unknown>)['limit']).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
});

it('toolsets narrow by intersection; whoami is listed whatever the toolsets', () => {
  expect(narrowToolsets(null, ['tasks'])).toEqual(['tasks']);
  expect(narrowToolsets(['tasks', 'room'], ['room', 'presence'])).toEqual(['room']);
  expect(narrowToolsets(undefined, undefined)).toBeNull();
  expect(listedToolsFor({ role: 'observer', toolsets: [] }).map((t) => t.name)).toEqual(['whoami']);
  expect(listedToolsFor({}).length).toBe(TOOLS.length);
});

it('a tool that lists its output schema admits the error body too (the Gemini CLI checks an error against it, issue 21)', () => {
  const tool = defineTool({ name: 'probe', description: 'd', input: z.strictObject({}), output: z.object({ n: z.number().int() }), mutates: false, listsOutput: true });
  const schema = listedTool(tool).outputSchema!;
  expect(schema['anyOf']).toEqual([
    { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } }, required: ['error'] },
  ]);
});
