#!/usr/bin/env bash
# scripts/trace_screenshot/trace_screenshot.sh TRACE.json OUT.png [WAIT_MS] — a manual check
# that a `collsim predict --trace` file loads in a Chrome trace viewer, offline: Debian's
# Chromium opens it in its DevTools Performance panel and a screenshot is saved. (The
# Perfetto UI itself is a web page, ui.perfetto.dev, out of reach without a network.)
# Installs Debian's chromium and, in a scratch folder, npm's playwright-core when missing.
set -euo pipefail
trace=$(realpath "${1:?usage: trace_screenshot.sh TRACE.json OUT.png [WAIT_MS]}")
out=$(realpath -m "${2:?usage: trace_screenshot.sh TRACE.json OUT.png [WAIT_MS]}")
here=$(cd "$(dirname "$0")" && pwd)
work=${TRACE_SCREENSHOT_DIR:-/tmp/collsim-trace-screenshot}
mkdir -p "$work"
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium
fi
[ -d "$work/node_modules/playwright-core" ] || (cd "$work" && npm install --silent --no-save playwright-core >/dev/null)
cp "$trace" "$work/trace.json"
# Serve the trace with a CORS header: DevTools fetches it from another origin.
python3 - "$work" <<'PY' &
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header('Access-Control-Allow-Origin', '*')
        super().end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(('127.0.0.1', 8765), functools.partial(Handler, directory=sys.argv[1])).serve_forever()
PY
server=$!
trap 'kill $server' EXIT
sleep 1
NODE_PATH="$work/node_modules" PROFILE_DIR="$work/profile" node "$here/load_trace.js" \
  http://127.0.0.1:8765/trace.json "$out" "${3:-30000}"
echo "trace_screenshot: $(basename "$trace") loaded; screenshot in $out"
