#!/usr/bin/env node
// The `roundtable-bridge` command; the code is src/cli.ts, bundled into bundle/ (scripts/bundle.mjs).
// The bridge runs inside every agent app, so it keeps V8's heap small and does not run V8's optimizing compiler, whose
// compilations cost about 7 MB of resident memory and buy nothing a process that mostly waits on I/O needs
// (docs/BENCHMARKS.md). The flags are set here, before anything is loaded, rather than in an `env -S` shebang, which
// busybox's env and some shims cannot run; each only tunes the heap or stops tiering up, so it is safe to set now.
import { setFlagsFromString } from 'node:v8';

for (const flag of ['--optimize-for-size', '--max-semi-space-size=1', '--semi-space-growth-factor=1', '--no-opt']) setFlagsFromString(flag);
await import('../bundle/cli.js');
