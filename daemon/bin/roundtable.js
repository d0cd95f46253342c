#!/usr/bin/env node
// The `roundtable-daemon` (also `roundtable`) command; the code is src/cli/main.ts, bundled into bundle/ (scripts/bundle.mjs).
import '../bundle/cli.js';
