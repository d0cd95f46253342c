// Projects: one daemon serves many boards, each named by a slug that appears in its URLs (/p/SLUG/mcp).

/** What every board that existed before projects becomes, and what the unprefixed URLs serve for a person granted it. */
export const DEFAULT_PROJECT = 'default';

/** 1-40 characters: lowercase letters, digits and "-", starting with a letter or digit (docs/SPEC.md). */
export const PROJECT_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const PROJECT_SLUG_RULE = '1-40 lowercase letters, digits or "-", starting with a letter or digit (e.g. "web-app")';

/** The roles a person holds in a project; agents hold the board roles (leader, worker, peer, ...). */
export const PERSON_ROLES = ['owner', 'observer'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

export const PROJECT_LIMITS = {
  /** Projects one daemon serves. */
  projects: 1_000,
  /** Agents in one project (people granted it not counted). */
  agentsPerProject: 200,
  /** People on one daemon. */
  people: 1_000,
  projectTitle: 200,
} as const;

/** The path prefix of a project's routes: `/p/web-app`. */
export function projectPrefix(slug: string): string {
  return `/p/${slug}`;
}
