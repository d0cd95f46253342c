// Size and paging limits, enforced by the daemon and advertised to clients in the tool schemas.

export const LIMITS = {
  title: 200,
  description: 8_000,
  message: 4_000,
  result: 20_000,
  reviewNote: 4_000,
  cancelReason: 4_000,
  releaseNote: 4_000,
  skill: 100,
  requiredSkills: 10,
  assigneeFilter: 100,
  listDefault: 50,
  listMax: 100,
  cursor: 200,
  roomRecipients: 50,
  roomPage: 100,
  waitDefaultS: 25,
  waitMaxS: 50,
  dependsOn: 20,
  reservePaths: 50,
  pathPattern: 300,
  /** Wildcards in one reservation pattern: a leading **, one * in its last name, a trailing ** (docs/SPEC.md). */
  patternWildcards: 3,
  reservationReason: 1_000,
  reservationScope: 100,
  reservationsPerTask: 200,
  /** Live reservations one agent holds over all its claims and scopes. */
  reservationsPerAgent: 500,
  checkPaths: 500,
  /** One path check_paths checks (a literal file name, as git spells it). */
  checkedPath: 4_096,
  /** All the paths of one check_paths call, in characters: what bounds the work of a call (the guard splits). */
  checkPathsChars: 32_768,
  /** Holders check_paths names for one path (all of one agent: exclusive reservations of two agents never overlap). */
  holdersPerPath: 10,
  reservationsListDefault: 100,
  reservationsListMax: 500,
  /** get_task: messages and history rows per page, default and most. */
  taskItemsDefault: 20,
  taskItemsMax: 100,
  /**
   * How deeply a request's JSON may nest, the whole message counted (`{}` is 1 level): deeper bodies are refused
   * before anything walks them, so no recursive reader, ours or a library's, can overflow its stack (issue 31).
   */
  jsonDepth: 64,
  /** submit_result's `work` (SPEC §22): the patch in UTF-8 bytes, and the parts of its summary. */
  workPatchBytes: 1_048_576,
  /** The patches one project keeps in all; past it a new submission keeps its summary and drops its patch. */
  projectPatchBytes: 268_435_456,
  workCommits: 500,
  workFiles: 5_000,
  workCommitSubject: 1_000,
  workBranch: 255,
  workPrUrl: 2_000,
  /** `usage`: each token count, the cost and the model's name. */
  usageTokens: 1_000_000_000_000,
  usageCostUsd: 1_000_000,
  usageModel: 200,
  /** search (issue 36): the query's characters, hits per page (default and most), and how deep pages may go. */
  searchQuery: 200,
  searchDefault: 20,
  searchMax: 50,
  searchDepth: 1_000,
  /** The largest id of any row (task, claim, message): PostgreSQL keeps ids as INTEGER, so both stores take 1 to 2^31-1. */
  maxId: 2_147_483_647,
} as const;

/** An Idempotency-Key header on a mutating API call: 1-200 of these characters; kept for 24 hours. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
