// How deeply a parsed request body nests, measured without recursion, so a body built to be deep is refused before
// anything that recurses (a schema check, a serialiser) walks it.
import { LIMITS } from 'roundtable-shared';

/** The refusal's words, the same on every face. */
export const JSON_TOO_DEEP = `the JSON is nested more than ${LIMITS.jsonDepth} levels deep (objects and arrays within each other); send a flatter body`;

/** Whether a parsed JSON value nests objects and arrays more than `max` levels deep (`{}` is 1 level). */
export function nestedDeeperThan(value: unknown, max: number = LIMITS.jsonDepth): boolean {
  // An explicit stack: the body's own depth decides how deep this goes, not the call stack.
  const stack: Array<{ readonly item: object; readonly depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ item: value, depth: 1 });
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push({ item: child as object, depth: depth + 1 });
    }
  }
  return false;
}
