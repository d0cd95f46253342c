// The task form in a dialog: a new task (title, description, skills, priority, assignee, depends_on), or an edit of
// one, which sends only the fields that changed.
import { LIMITS } from '../../shared/src/limits.js';
import { PRIORITIES } from '../../shared/src/states.js';
import { byId, h } from './dom.js';
import { perform, showError } from './feedback.js';
import { view } from './state.js';
import type { Task } from './types.js';

const ui = () => ({
  dialog: byId<HTMLDialogElement>('task-dialog'),
  form: byId<HTMLFormElement>('task-form'),
  heading: byId('task-dialog-title'),
  title: byId<HTMLInputElement>('task-title'),
  description: byId<HTMLTextAreaElement>('task-description'),
  skills: byId<HTMLInputElement>('task-skills'),
  priority: byId<HTMLSelectElement>('task-priority'),
  assignee: byId<HTMLSelectElement>('task-assignee'),
  dependsOn: byId<HTMLInputElement>('task-depends-on'),
  submit: byId<HTMLButtonElement>('task-submit'),
  error: byId('task-error'),
});

/** The task being edited, or null for a new one; and the control to give focus back to. */
let editing: Task | null = null;
let returnFocus: HTMLElement | null = null;

/** "a, b" -> ["a", "b"]: the skills as typed, blanks dropped. */
function parseSkills(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
}

/** "#3, 4" -> [3, 4]; undefined names what is not a task id. */
function parseIds(text: string): { ids: number[] } | { bad: string } {
  const parts = text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  const ids: number[] = [];
  for (const part of parts) {
    const match = /^#?([1-9]\d{0,15})$/.exec(part);
    if (!match) return { bad: part };
    ids.push(Number(match[1]));
  }
  return { ids: [...new Set(ids)] };
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && [...a].map(String).sort().join('\n') === [...b].map(String).sort().join('\n');
}

/** Who may be assigned a task: the workers (peer mode: the peers). */
function fillAssignees(current: string | null): void {
  const { assignee } = ui();
  const data = view.data;
  const role = data?.mode === 'peer' ? 'peer' : 'worker';
  const names = (data?.members ?? []).filter((m) => m.role === role).map((m) => m.name).sort();
  if (current !== null && !names.includes(current)) names.push(current);
  assignee.replaceChildren(h('option', { value: '' }, 'Anyone qualified'), ...names.map((name) => h('option', { value: name }, name)));
  assignee.value = current ?? '';
}

export function setUpTaskForm(): void {
  const c = ui();
  c.title.maxLength = LIMITS.title;
  c.description.maxLength = LIMITS.description;
  c.priority.replaceChildren(...PRIORITIES.map((p) => h('option', { value: p }, p)));
  c.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submitTaskForm();
  });
  byId('task-cancel').addEventListener('click', () => c.dialog.close());
  c.dialog.addEventListener('close', () => {
    if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
    returnFocus = null;
  });
}

/** Opens the form: empty for a new task, or filled with `task` to edit it. */
export function openTaskForm(task: Task | null, from: HTMLElement | null): void {
  const c = ui();
  editing = task;
  returnFocus = from;
  c.heading.textContent = task ? `Edit task #${task.id}` : 'New task';
  c.submit.textContent = task ? 'Save changes' : 'Create task';
  c.title.value = task?.title ?? '';
  c.description.value = task?.description ?? '';
  c.skills.value = (task?.required_skills ?? []).join(', ');
  c.priority.value = task?.priority ?? 'normal';
  fillAssignees(task?.assignee ?? null);
  // A held task keeps its skills and assignee until it is released or reviewed (SPEC "Editing").
  const held = task !== null && (task.status === 'claimed' || task.status === 'submitted');
  c.skills.disabled = held;
  c.assignee.disabled = held;
  c.dependsOn.value = (task?.depends_on ?? []).map((id) => `#${id}`).join(', ');
  showError(c.error, '');
  c.dialog.showModal();
  c.title.focus();
}

async function submitTaskForm(): Promise<void> {
  const c = ui();
  const depends = parseIds(c.dependsOn.value);
  if ('bad' in depends) {
    showError(c.error, `Depends on: "${depends.bad}" is not a task id; write ids such as #3, #4.`);
    c.dependsOn.focus();
    return;
  }
  const fields = {
    title: c.title.value,
    description: c.description.value,
    required_skills: parseSkills(c.skills.value),
    priority: c.priority.value,
    assignee: c.assignee.value === '' ? null : c.assignee.value,
    depends_on: depends.ids,
  };
  const task = editing;
  let args: Record<string, unknown>;
  if (task === null) {
    args = { title: fields.title, priority: fields.priority };
    if (fields.description !== '') args['description'] = fields.description;
    if (fields.required_skills.length) args['required_skills'] = fields.required_skills;
    if (fields.assignee !== null) args['assignee'] = fields.assignee;
    if (fields.depends_on.length) args['depends_on'] = fields.depends_on;
  } else {
    args = { task_id: task.id };
    if (fields.title !== task.title) args['title'] = fields.title;
    if (fields.description !== task.description) args['description'] = fields.description;
    if (!c.skills.disabled && !sameList(fields.required_skills, task.required_skills)) args['required_skills'] = fields.required_skills;
    if (fields.priority !== task.priority) args['priority'] = fields.priority;
    if (!c.assignee.disabled && fields.assignee !== task.assignee) args['assignee'] = fields.assignee;
    if (!sameList(fields.depends_on, task.depends_on)) args['depends_on'] = fields.depends_on;
    if (Object.keys(args).length === 1) {
      c.dialog.close();
      return;
    }
  }
  const done = await perform<{ task: Task }>({
    form: c.form,
    tool: task === null ? 'create_task' : 'update_task',
    args,
    done: (body) => (task === null ? `Task #${body.task.id} created.` : `Task #${body.task.id} saved.`),
    errorEl: c.error,
  });
  if (done) c.dialog.close();
}
