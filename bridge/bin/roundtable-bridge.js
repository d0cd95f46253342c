#!/usr/bin/env node
// The `roundtable-bridge` command; the code is src/cli.ts, bundled into bundle/ (scripts/bundle.mjs).
// The bridge runs inside every agent app, so it keeps V8's heap small (docs/BENCHMARKS.md). The flags are set here,
// before anything is loaded, rather than in an `env -S` shebang, which busybox's env and some shims cannot run.
import { setFlagsFromString } from 'node:v8';

for (const flag of ['--optimize-for-size', '--max-semi-space-size=1', '--semi-space-growth-factor=1']) setFlagsFromString(flag);
await import('../bundle/cli.js');
