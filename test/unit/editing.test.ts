// Editing a task as a pure decision: what counts as a change of a list field.
import { expect, it } from 'vitest';
import type { Task } from 'roundtable-shared';
import type { Agent } from '../../daemon/src/agents/directory.js';
import { decideEdit } from '../../daemon/src/board/editing.js';

const lead: Agent = { name: 'lead', role: 'leader', skills: [] };
const NO_FACTS = { statuses: new Map(), edges: [] };

function task(requiredSkills: string[]): Task {
  const at = new Date(0).toISOString();
  return {
    id: 1, title: 't', description: '', required_skills: requiredSkills, status: 'open', assignee: null, created_by: 'lead', result: null,
    claim_id: null, lease_expires_at: null, created_at: at, updated_at: at, priority: 'normal', depends_on: [], blocked_by: [], blocked_by_cancelled: [],
  };
}

it('skills are compared item by item: two lists that join to the same text are still a change (issue 22, item 6)', () => {
  // A task written before skills had a grammar can hold a line break; joined with "\n" both lists read "a\nb\nc".
  const edit = decideEdit(task(['a\nb', 'c']), { agent: lead, mode: 'role' }, { requiredSkills: ['a', 'b\nc'] }, NO_FACTS);
  expect(edit?.fields).toEqual(['required_skills']);
  expect(edit?.old['required_skills']).toEqual(['a\nb', 'c']);
  expect(edit?.set.requiredSkills).toEqual(['a', 'b\nc']);
});

it('the same skills in another order are no change; another member is', () => {
  expect(decideEdit(task(['sql', 'python']), { agent: lead, mode: 'role' }, { requiredSkills: ['python', 'sql'] }, NO_FACTS)).toBeNull();
  expect(decideEdit(task(['sql', 'python']), { agent: lead, mode: 'role' }, { requiredSkills: ['python', 'go'] }, NO_FACTS)?.fields).toEqual(['required_skills']);
  expect(decideEdit(task(['sql']), { agent: lead, mode: 'role' }, { requiredSkills: ['sql', 'sql2'] }, NO_FACTS)?.fields).toEqual(['required_skills']);
});
