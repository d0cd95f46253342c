// The `work` record of a submit_result, from the git work tree the bridge runs in (issue 35). To be filled in.
import type { CallProvider } from '../submission/attach.js';

export interface WorkProviderOptions {
  /** The folder the app launched the bridge in. */
  readonly cwd: string;
}

export function workProvider(_options: WorkProviderOptions): CallProvider {
  return { name: 'work' };
}
