#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size
// The `roundtable-bridge` command; the code is compiled from src/cli.ts.
// The V8 flags keep the bridge's resident memory small: it runs inside every agent app (docs/BENCHMARKS.md).
import '../dist/cli.js';
