#!/usr/bin/env node
// The `roundtable-bridge` command; the code is compiled from src/cli.ts.
import '../dist/cli.js';
