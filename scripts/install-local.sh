#!/usr/bin/env bash
# One-command local install of Roundtable: installs the dependencies, creates agents.json, starts the board in
# the background, checks it with a real tool call (whoami), and prints the next steps.
#
# Usage: scripts/install-local.sh [--skip-install]
#   --skip-install   do not run `npm ci` (the repository must already be installed and built)
#
# Settings (environment variables):
#   ROUNDTABLE_DATA_DIR       folder for the database, agents.json, the log, the pid file and an env file
#                             (default: .roundtable in the repository)
#   ROUNDTABLE_HOST           loopback address to bind (default 127.0.0.1)
#   ROUNDTABLE_PORT           default 8000
#   ROUNDTABLE_DB_PATH, ROUNDTABLE_AGENTS_CONFIG   default: roundtable.db and agents.json in the data folder
#   ROUNDTABLE_TOKEN          on a later run, an agent's token to check a tool call with (read, never printed)
#
# It can be run again: it keeps the settings of the board it started (the env file in the data folder; a variable
# set on the new run wins), reuses agents.json (printing no tokens then) and does not start a second board.
# Tokens are printed once, at the end of the run that creates agents.json, and are written to no file.
set -euo pipefail
umask 077

skip_install=0
for arg in "$@"; do
  case "$arg" in
    --skip-install) skip_install=1 ;;
    -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      printf 'install-local: unknown option %s (use --skip-install or --help)\n' "$arg" >&2
      exit 2
      ;;
  esac
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLI="$ROOT/daemon/bin/roundtable.js"

say() { printf '%s\n' "$*"; }

# Set once agents.json is created; printed at the end, or on the way out if a later step fails.
tokens_json=''
tokens_printed=0

print_tokens() {
  [ -n "$tokens_json" ] && [ "$tokens_printed" = 0 ] || return 0
  tokens_printed=1
  say ''
  say "Tokens, shown once, now ($ROUNDTABLE_AGENTS_CONFIG keeps only their hashes):"
  printf '%s' "$tokens_json" | node -e '
    let text = "";
    process.stdin.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => {
      for (const a of JSON.parse(text).agents) console.log(`  ${a.name.padEnd(10)} ${a.role.padEnd(7)} ${a.token}`);
    });'
  say "The owner's token is yours: sign in with it at $URL/ to act on the board's page."
  say 'Give each agent its own token; keep them out of chats, logs and committed files.'
}

die() {
  printf 'install-local: %s\n' "$*" >&2
  print_tokens >&2
  exit 1
}

trap 'status=$?; if [ "$status" != 0 ]; then print_tokens >&2; fi' EXIT

absolute() {
  case "$1" in
    /*) printf '%s' "$1" ;;
    *) printf '%s/%s' "$PWD" "$1" ;;
  esac
}

# ---- 1. Node.js 20+ and npm
command -v node >/dev/null 2>&1 || die 'Node.js 20 or newer is needed (https://nodejs.org); `node` is not on PATH'
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node.js 20 or newer is needed; this is $(node --version)"
command -v npm >/dev/null 2>&1 || die 'npm is needed (it comes with Node.js)'

# ---- 2. Dependencies and build
if [ "$skip_install" = 0 ]; then
  say '== npm ci (dependencies, then the build)'
  (cd "$ROOT" && npm ci --no-audit --no-fund)
fi
[ -f "$ROOT/daemon/dist/cli/main.js" ] || die "the daemon is not built: run without --skip-install (or \`npm ci\` in $ROOT)"

# ---- 3. Settings
DATA_DIR=$(absolute "${ROUNDTABLE_DATA_DIR:-$ROOT/.roundtable}")
mkdir -p "$DATA_DIR"
ENV_FILE=$DATA_DIR/env
SETTINGS=(ROUNDTABLE_HOST ROUNDTABLE_PORT ROUNDTABLE_DB_PATH ROUNDTABLE_AGENTS_CONFIG)

# A rerun keeps the settings of the board an earlier run started (else it would look for it on the default
# port); a variable set for this run still wins. The file is our own (written below with printf %q, mode 600),
# and only its lines for the settings above are read.
if [ -f "$ENV_FILE" ]; then
  kept=()
  while IFS= read -r line; do
    name=${line#export }
    name=${name%%=*}
    case " ${SETTINGS[*]} " in *" $name "*) ;; *) continue ;; esac
    [ "$line" != "export $name=${line#*=}" ] && continue
    [ -n "${!name:-}" ] && continue
    eval "$line"
    kept+=("$name=${!name}")
  done <"$ENV_FILE"
  [ "${#kept[@]}" = 0 ] || say "== keeping the settings of the earlier run ($ENV_FILE): ${kept[*]}"
fi

export ROUNDTABLE_HOST=${ROUNDTABLE_HOST:-127.0.0.1}
export ROUNDTABLE_PORT=${ROUNDTABLE_PORT:-8000}
ROUNDTABLE_DB_PATH=$(absolute "${ROUNDTABLE_DB_PATH:-$DATA_DIR/roundtable.db}")
ROUNDTABLE_AGENTS_CONFIG=$(absolute "${ROUNDTABLE_AGENTS_CONFIG:-$DATA_DIR/agents.json}")
export ROUNDTABLE_DB_PATH ROUNDTABLE_AGENTS_CONFIG
LOG_FILE=$DATA_DIR/roundtable.log
PID_FILE=$DATA_DIR/roundtable.pid

case "$ROUNDTABLE_HOST" in
  localhost | 127.* ) url_host=$ROUNDTABLE_HOST ;;
  ::1 | '[::1]') url_host='[::1]' ;;
  *) die "ROUNDTABLE_HOST=$ROUNDTABLE_HOST: this script runs the board over plain HTTP, so only on loopback (127.0.0.1); to expose it, put a TLS reverse proxy in front" ;;
esac
case "$ROUNDTABLE_PORT" in
  '' | *[!0-9]* | 0) die "ROUNDTABLE_PORT=$ROUNDTABLE_PORT: set a fixed port number, e.g. 8000" ;;
esac
[ -z "${ROUNDTABLE_TLS_CERT:-}${ROUNDTABLE_TLS_KEY:-}" ] || die 'this script runs the board over plain HTTP on loopback; unset ROUNDTABLE_TLS_CERT and ROUNDTABLE_TLS_KEY'
URL="http://$url_host:$ROUNDTABLE_PORT"

# ---- 4. The board already running, or a free port for it
# A live pid that runs roundtable: the daemon's own lock beside the database, or our pid file.
running_pid() {
  local file pid
  for file in "$ROUNDTABLE_DB_PATH.lock" "$PID_FILE"; do
    [ -f "$file" ] || continue
    # The lock's first line is the pid (the second, the time that process started).
    pid=$(head -n 1 "$file" | tr -dc '0-9')
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    if command -v ps >/dev/null 2>&1 && ! ps -o args= -p "$pid" 2>/dev/null | grep -q roundtable; then continue; fi
    printf '%s' "$pid"
    return 0
  done
  return 1
}

# What listens on the port, as "python3 (pid 4242)", when ss or lsof can tell (another user's program may be hidden).
port_holder() {
  local found
  if command -v ss >/dev/null 2>&1; then
    found=$(ss -Hltnp "sport = :$ROUNDTABLE_PORT" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -n 1) || true
    if [ -n "$found" ]; then
      found=${found#users:((\"}
      printf '%s (pid %s)' "${found%%\"*}" "${found##*pid=}"
      return 0
    fi
  fi
  if command -v lsof >/dev/null 2>&1; then
    found=$(lsof -nP -iTCP:"$ROUNDTABLE_PORT" -sTCP:LISTEN -Fpc 2>/dev/null | head -n 2 | tr '\n' ' ') || true
    case "$found" in
      p[0-9]*' c'?*) printf '%s (pid %s)' "$(printf '%s' "${found#* c}" | sed 's/ $//')" "$(printf '%s' "${found%% *}" | tr -dc '0-9')"; return 0 ;;
    esac
  fi
  return 1
}

# Exit 0: the port is free on ROUNDTABLE_HOST. Exit 3: taken; prints whether it answers as a Roundtable board, then
# the first free port above it. Another code: the port cannot be bound at all (printed).
port_check() {
  node -e '
    const net = require("node:net");
    const [host, port] = [process.argv[1], Number(process.argv[2])];
    const bind = (p) => new Promise((resolve) => {
      const server = net.createServer().once("error", (e) => resolve(e.code)).listen(p, host, () => server.close(() => resolve("free")));
    });
    (async () => {
      const first = await bind(port);
      if (first === "free") process.exit(0);
      if (first !== "EADDRINUSE") { console.log(first); process.exit(4); }
      const shown = host.includes(":") ? "[" + host + "]" : host;
      const status = await fetch("http://" + shown + ":" + port + "/status", { signal: AbortSignal.timeout(2000) })
        .then(async (r) => r.ok && (await r.json()).ok === true).catch(() => false);
      let free = "";
      for (let p = port + 1; p <= Math.min(port + 50, 65535) && !free; p += 1) if ((await bind(p)) === "free") free = String(p);
      console.log((status ? "board" : "other") + " " + free);
      process.exit(3);
    })();' "$ROUNDTABLE_HOST" "$ROUNDTABLE_PORT"
}

if pid=$(running_pid); then
  started=0
  say "== the board is already running (pid $pid); not starting another"
else
  # Checked before anything is written: a board that cannot listen would otherwise leave a board on that port
  # (another Roundtable, say) to answer for it, and the new tokens would get 401 there.
  check_result=0
  check=$(port_check) || check_result=$?
  if [ "$check_result" = 3 ]; then
    holder=$(port_holder) || holder='another program (neither ss nor lsof could tell which)'
    what=''
    [ "${check%% *}" = board ] && what=', which answers as another Roundtable board (with its own database and agents)'
    suggestion=${check#* }
    die "port $ROUNDTABLE_PORT on $ROUNDTABLE_HOST is already in use by $holder$what; nothing was started or written. Stop that program, or choose another port: ROUNDTABLE_PORT=${suggestion:-<a free port>} $0 --skip-install"
  elif [ "$check_result" != 0 ]; then
    die "cannot listen on $ROUNDTABLE_HOST port $ROUNDTABLE_PORT ($check); choose another ROUNDTABLE_PORT or ROUNDTABLE_HOST"
  fi
  started=1
fi

# ---- 5. agents.json
if [ -f "$ROUNDTABLE_AGENTS_CONFIG" ]; then
  say "== $ROUNDTABLE_AGENTS_CONFIG exists: reusing it. No tokens are printed (they were shown once when it was made;"
  say '   `npx roundtable agents rotate NAME` issues a new one).'
else
  say "== creating $ROUNDTABLE_AGENTS_CONFIG (an owner for you, one leader, two workers; hashes only, mode 600)"
  tokens_json=$(node "$CLI" init --json)
fi

# ---- 6. The board, in the background (once)
if [ "$started" = 1 ]; then
  say "== starting the board in the background (log: $LOG_FILE)"
  nohup node "$CLI" run >>"$LOG_FILE" 2>&1 </dev/null &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"
fi

# ---- 7. Wait for /status (and notice a board that exits during start-up)
wait_result=0
node -e '
  const { readFileSync } = require("node:fs");
  const [url, pid, lock] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
  const deadline = Date.now() + 20_000;
  const alive = () => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === "EPERM"; } };
  // Our board holds the lock beside its database with its pid; a board answering without it is someone else.
  const ours = () => { try { return readFileSync(lock, "utf8").split("\n")[0].trim() === String(pid); } catch { return false; } };
  (async () => {
    while (Date.now() < deadline) {
      try {
        const r = await fetch(url + "/status", { signal: AbortSignal.timeout(2000) });
        // The board answers {"ok": true, ...}; anything else on that port is another program.
        if (r.ok && (await r.json().catch(() => ({}))).ok === true && alive() && ours()) process.exit(0);
      } catch {}
      if (!alive()) process.exit(2);
      await new Promise((r) => setTimeout(r, 200));
    }
    process.exit(1);
  })();' "$URL" "$pid" "$ROUNDTABLE_DB_PATH.lock" || wait_result=$?
if [ "$wait_result" != 0 ]; then
  if [ "$started" = 1 ]; then
    [ "$wait_result" = 2 ] || kill "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    say "The board did not start; the end of $LOG_FILE:" >&2
    tail -n 15 "$LOG_FILE" >&2 || true
    die "the board did not answer at $URL/status (see the log above)"
  fi
  die "a board (pid $pid) is running but does not answer at $URL/status; was it started with another ROUNDTABLE_PORT? Stop it with \`kill $pid\` and run this again"
fi
say "== the board answers at $URL/status"

# The settings (no secrets), so later commands and reruns find the same board: `. .roundtable/env`. Written once
# the board answers, so a failed run leaves the settings of the last good one.
{
  say "# Settings of the board started by scripts/install-local.sh; no secrets. Load with: . $ENV_FILE"
  for name in "${SETTINGS[@]}"; do
    printf 'export %s=%q\n' "$name" "${!name}"
  done
} >"$ENV_FILE"

# ---- 8. A real tool call: whoami with a token passed on stdin (never on a command line)
whoami() {
  node -e '
    let token = "";
    process.stdin.setEncoding("utf8").on("data", (d) => (token += d)).on("end", async () => {
      try {
        const r = await fetch(process.argv[1] + "/api/v1/tools/whoami", {
          method: "POST",
          headers: { authorization: "Bearer " + token.trim(), "content-type": "application/json" },
          body: "{}",
          signal: AbortSignal.timeout(10000),
        });
        const body = await r.json();
        if (!r.ok) throw new Error("HTTP " + r.status + ": " + (body.error ? body.error.message : "no error message"));
        console.log(body.name + " (" + body.role + ") on board \"" + body.board + "\"");
      } catch (e) {
        console.error("whoami failed: " + e.message);
        process.exit(1);
      }
    });' "$URL"
}

if [ -n "$tokens_json" ]; then
  me=$(printf '%s' "$tokens_json" | node -e '
    let text = "";
    process.stdin.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => {
      const agents = JSON.parse(text).agents;
      process.stdout.write((agents.find((a) => a.role === "leader") ?? agents[0]).token);
    });' | whoami) || die "the board answers, but a tool call with the new leader token failed"
  say "== verified with a tool call: whoami answered $me"
elif [ -n "${ROUNDTABLE_TOKEN:-}" ]; then
  me=$(printf '%s' "$ROUNDTABLE_TOKEN" | whoami) || die "the board answers, but whoami with ROUNDTABLE_TOKEN failed"
  say "== verified with a tool call: whoami answered $me (token from ROUNDTABLE_TOKEN)"
else
  say '== no token at hand for a tool call (agents.json already existed): checked /status only.'
  say "   To check an agent's token: ROUNDTABLE_TOKEN=... scripts/install-local.sh --skip-install, or npx roundtable-bridge status --url $URL"
fi

# ---- 9. Next steps
BRIDGE="$ROOT/bridge/bin/roundtable-bridge.js"
cat <<EOF

Roundtable is running: $URL (pid $pid)
  MCP endpoint: $URL/mcp    status: $URL/status
  data: $DATA_DIR (database, agents.json, log, pid file; settings in $ENV_FILE)
EOF
print_tokens
cat <<EOF

Connect an agent (each agent its own token; every client and option: docs/CONNECT.md). In $ROOT:
  npx roundtable-bridge login --url $URL     # hidden prompt for the token; checks it, stores it in the OS keychain
  npx roundtable-bridge status --url $URL    # which agent, where the token comes from, round-trip time
Then tell the agent app to launch the bridge:
  Claude Code:  claude mcp add -s user roundtable -- node $BRIDGE --url $URL
  Codex, in ~/.codex/config.toml:
    [mcp_servers.roundtable]
    command = "node"
    args = ["$BRIDGE", "--url", "$URL"]
  Several agents on one machine: add --profile NAME to login and to the launch command.
  No keychain (headless): give the app ROUNDTABLE_TOKEN in its environment instead of login.

Manage the board (load its settings first: . $ENV_FILE):
  npx roundtable agents add NAME --role worker --skills a,b   # a new agent, no restart (docs/ADD-AGENT.md)
  npx roundtable doctor                                       # checks everything, says how to fix
  tail -f $LOG_FILE

Stop it:        kill \$(cat $PID_FILE)     (a clean shutdown)
Start it again: $ROOT/scripts/install-local.sh --skip-install
EOF
