// The bridge as tsc compiled it, unbundled (bridge/dist/, ~280 module files), started as bridge/bin/roundtable-bridge.js
// starts the bundle: the bench's bridge_start section compares the two.
import { setFlagsFromString } from 'node:v8';

for (const flag of ['--optimize-for-size', '--max-semi-space-size=1', '--semi-space-growth-factor=1']) setFlagsFromString(flag);
await import('../bridge/dist/cli.js');
