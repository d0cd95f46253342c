// The tool contract in shared/: twenty-two tools, strict inputs, portable schemas.
import { expect, it } from 'vitest';
import { listedTools, TOOLS } from 'roundtable-shared';

it('defines the twenty-two board tools once each', () => {
  const names = TOOLS.map((t) => t.name);
  expect(names).toHaveLength(22);
  expect(new Set(names).size).toBe(22);
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
