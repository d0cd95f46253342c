// The `usage` of a submit_result or post_message, from what the app records of its model use (issue 35): the model use
// of the app's session since this bridge last reported it (usage/meter.ts). ROUNDTABLE_USAGE=off turns it off.
import type { CallProvider } from '../submission/attach.js';
import { UsageMeter, type UsageMeterOptions } from './meter.js';

/** The calls that carry `usage`. */
const REPORTING = new Set(['submit_result', 'post_message']);

export type UsageProviderOptions = UsageMeterOptions;

export function usageProvider(options: UsageProviderOptions): CallProvider {
  if ((options.env ?? process.env)['ROUNDTABLE_USAGE'] === 'off') return { name: 'usage' };
  const meter = new UsageMeter(options);
  return {
    name: 'usage',
    async before(tool, args) {
      if (!REPORTING.has(tool) || args['usage'] !== undefined) return undefined;
      const usage = await meter.unreported();
      return usage && { usage };
    },
    async after(tool, args) {
      if (tool === 'claim_task') await meter.claimed();
      else if (REPORTING.has(tool)) await meter.reported(args['usage']);
    },
  };
}
