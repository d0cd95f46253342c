#!/usr/bin/env node
// The `roundtable-worker` command; the code is src/worker/cli.ts, bundled into bundle/ (scripts/bundle.mjs).
import '../bundle/worker.js';
