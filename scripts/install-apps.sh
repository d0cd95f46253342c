#!/usr/bin/env bash
# Installs the agent apps and the Node versions that test/apps/ runs (pinned in test/apps/package.json and its lock)
# into ${ROUNDTABLE_APPS_DIR:-.apps}, where the real-app tests find them; without them those tests are skipped, unless
# ROUNDTABLE_REQUIRE_APPS=1. Idempotent: a folder that already holds this lock's install is left as it is.
# Only the npm registry is used: the apps ship prebuilt binaries, and opencode 1.18 bundles its Anthropic provider.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${ROUNDTABLE_APPS_DIR:-$PWD/.apps}
mkdir -p "$dir"
if cmp -s test/apps/package-lock.json "$dir/installed-lock.json" && [ -d "$dir/node_modules" ]; then
  echo "agent apps: $dir already holds the install of test/apps/package-lock.json"
else
  rm -rf "$dir/node_modules" "$dir/installed-lock.json"
  cp test/apps/package.json test/apps/package-lock.json "$dir/"
  # The lock pins every package; allowScripts in package.json lets only the apps' and node's own installers run.
  # `npm install`, not `npm ci`: npm leaves other systems' optional packages of opencode out of a lock it writes
  # (npm/cli#4828), and `npm ci` then calls the lock out of sync; install follows the lock all the same.
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
  cp test/apps/package-lock.json "$dir/installed-lock.json"
fi
for app in claude codex gemini opencode; do echo "$app: $("$dir/node_modules/.bin/$app" --version 2>&1 | head -1)"; done
for v in 22 24; do echo "node$v: $("$dir/node_modules/node$v/bin/node" --version)"; done
