# Shared by the e2e scripts (sourced, not run): installing their pinned Node tools and
# starting the built binary on the offline demo network. The caller sets name (the log
# prefix), root (the repository), here (its folder, with package.json and the lock) and
# tools (where the tools go, git-ignored), and has built bin/peppolgate.

# node_tools installs the tools of $here into $tools with npm ci, only when package.json
# or the lock differ from what the stamp says was installed (npm ci wipes and rebuilds
# node_modules), then puts their Node 22 first on PATH and sets node_version.
node_tools() {
  local want
  want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
  if [ ! -x "$tools/node_modules/.bin/node" ] || [ "$(cat "$tools/.stamp" 2>/dev/null)" != "$want" ]; then
    echo "$name: installing the pinned Node 22 tools of $here into ${tools#"$root"/}"
    rm -rf "$tools"
    mkdir -p "$tools"
    cp "$here/package.json" "$here/package-lock.json" "$tools/"
    (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --update-notifier=false --engine-strict=false \
      --fetch-timeout=60000 --fetch-retries=2 --loglevel=error)
    echo "$want" >"$tools/.stamp"
  fi
  export PATH="$tools/node_modules/.bin:$PATH" # node is now Node 22
  node_version=$(node --version)
  case $node_version in v22.*) ;; *) echo "$name: expected Node 22, got $node_version" >&2; exit 1 ;; esac
}

# The server's logs go to $work, removed at exit unless keep=1; the server is stopped at
# exit, and an interrupt stops after the running step.
work=$(mktemp -d)
pid=
keep=0
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ "$keep" = 1 ]; then echo "$name: logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_server runs the command "$@" every 0.1 s until it succeeds, for at most $2
# seconds, while the server (pid) runs; when the server exits or the time is up it prints
# why, with $1 saying what was awaited, and the server's log, and exits 1.
wait_server() {
  local what=$1 seconds=$2
  shift 2
  local deadline=$(($(date +%s) + seconds))
  until "$@"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: peppolgate exited while waiting for $what:" >&2
      cat "$work/server.stderr" >&2
      exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "$name: $what did not come within ${seconds}s:" >&2
      cat "$work/server.stderr" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# healthy sets port from the server's "listening" log line, once there is one, and
# succeeds when its /healthz answers.
healthy() {
  port=$(sed -n 's/.*"msg":"listening".*"addr":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/server.stderr" | head -1)
  [ -n "$port" ] && curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null
}

# start_demo starts bin/peppolgate on the demo network and sets pid and port once
# /healthz answers (30 s at most). Port 0: the kernel picks a free port and the server
# reports it in its "listening" log line, so no other process can take a port chosen in
# advance.
start_demo() {
  bin/peppolgate -network demo -addr 127.0.0.1:0 >"$work/server.stdout" 2>"$work/server.stderr" &
  pid=$!
  port=
  wait_server "its start-up (/healthz)" 30 healthy
}
