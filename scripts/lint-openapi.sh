#!/usr/bin/env bash
# Lints the OpenAPI document the server actually serves: builds cmd/quire, starts it on a free
# loopback port over a throwaway SQLite store, fetches /v2/openapi.json, stops the server, and
# runs the pinned Redocly CLI with scripts/redocly.yaml (the recommended ruleset) on the file.
#
# Exits non-zero when the lint reports an error, and also when it reports a warning, so the
# document stays warning-free; LINT_ALLOW_WARNINGS=1 lets warnings through.
# Needs go, curl, and node/npx (the CLI comes from the npm registry on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

REDOCLY_VERSION=2.77.0 # pinned: new releases add rules
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

tmp=$(mktemp -d "${TMPDIR:-/tmp}/quire-lint.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "building cmd/quire"
go build -o "$tmp/quire" ./cmd/quire

# Port 0: the kernel picks a free port and the server prints the URL it serves. The
# environment's store and URL settings are dropped so the document describes this server.
env -u QUIRE_DATABASE_URL -u QUIRE_BASE_URL -u QUIRE_ADDR -u QUIRE_RATE_LIMIT \
  "$tmp/quire" serve --data "$tmp/data" --addr 127.0.0.1:0 --log-level warn \
  >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!

base=""
for _ in $(seq 1 300); do # up to 30 s (first start applies the migrations)
  base=$(sed -n 's|^quire: serving \(http://[^ ]*\)/v2 .*|\1|p' "$tmp/stdout" | head -n 1)
  [ -n "$base" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "the server exited before serving:" >&2; cat "$tmp/stderr" >&2; exit 1
  fi
  sleep 0.1
done
if [ -z "$base" ]; then
  echo "the server did not start within 30 s:" >&2; cat "$tmp/stderr" >&2; exit 1
fi

doc="$tmp/openapi.json"
curl -fsS -o "$doc" "$base/v2/openapi.json"
kill -TERM "$pid"
wait "$pid" || { echo "the server did not stop cleanly:" >&2; cat "$tmp/stderr" >&2; exit 1; }
pid=""
echo "fetched $base/v2/openapi.json ($(wc -c <"$doc") bytes); server stopped"

# JSON output gives exact counts and JSON pointers (the served document is a single line, so
# line:column positions would say little). Redocly's own summary goes to stderr.
set +e
npx --yes "@redocly/cli@$REDOCLY_VERSION" lint --config scripts/redocly.yaml --lint-config error \
  --format json --max-problems 1000 "$doc" >"$tmp/lint.json" 2>"$tmp/lint.err"
status=$?
set -e
if ! node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$tmp/lint.json" 2>/dev/null; then
  echo "redocly lint did not produce a report (exit $status):" >&2; cat "$tmp/lint.err" "$tmp/lint.json" >&2; exit 1
fi
node - "$tmp/lint.json" "$status" "${LINT_ALLOW_WARNINGS:-0}" <<'JS'
const fs = require("fs");
const [file, status, allowWarnings] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(file, "utf8"));
for (const p of report.problems) {
  const where = (p.location || []).map((l) => l.pointer).join(", ");
  console.log(`${p.severity.padEnd(5)} ${p.ruleId} at ${where}: ${p.message}`);
}
const { errors, warnings } = report.totals;
console.log(`redocly ${report.version} lint: ${errors} error(s), ${warnings} warning(s)`);
if (status !== "0" && errors === 0) console.log(`redocly exited with status ${status}: ` +
  fs.readFileSync(file.replace(/json$/, "err"), "utf8"));
process.exit(status !== "0" || errors > 0 || (warnings > 0 && allowWarnings !== "1") ? 1 : 0);
JS
