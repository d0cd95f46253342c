// A task title as a branch and folder name: the title is agent-written text, so only this slug of it ever reaches
// git or the terminal.

/** The most characters of the title's slug. */
export const SLUG_MAX = 40;

/**
 * Lowercase ASCII letters and digits, every other run of characters one "-", no "-" at either end, at most SLUG_MAX
 * characters (cut at a "-" when one is near). Accented letters lose their accents first (é -> e).
 */
export function titleSlug(title: string): string {
  const plain = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const slug = plain.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (slug.length <= SLUG_MAX) return slug;
  const cut = slug.slice(0, SLUG_MAX);
  const dash = cut.lastIndexOf('-');
  return (dash >= SLUG_MAX / 2 ? cut.slice(0, dash) : cut).replace(/-+$/, '');
}

/** The task's branch: rt/ID-slug, or rt/ID when the title has no letter or digit. */
export function taskBranch(taskId: number, title: string): string {
  const slug = titleSlug(title);
  return slug === '' ? `rt/${taskId}` : `rt/${taskId}-${slug}`;
}

/** The task's folder name in the worktrees folder: ID-slug, or ID. */
export function taskFolder(taskId: number, title: string): string {
  const slug = titleSlug(title);
  return slug === '' ? String(taskId) : `${taskId}-${slug}`;
}
