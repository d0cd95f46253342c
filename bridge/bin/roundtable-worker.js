#!/usr/bin/env node
// The `roundtable-worker` command; the code is compiled from src/worker/cli.ts.
import '../dist/worker/cli.js';
