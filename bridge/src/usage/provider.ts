// The `usage` of a submit_result or post_message, from what the app records of its model use (issue 35). To be
// filled in.
import type { CallProvider } from '../submission/attach.js';

export interface UsageProviderOptions {
  readonly cwd: string;
}

export function usageProvider(_options: UsageProviderOptions): CallProvider {
  return { name: 'usage' };
}
