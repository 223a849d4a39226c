#!/bin/sh
# Writes the API description the built service serves, lints it with Redocly (recommended rules,
# redocly.yaml) and generates TypeScript types from it with openapi-typescript, then type-checks
# them with TypeScript 5 (openapi-typescript's peer; the root project uses TypeScript 7), and
# checks that the client package's copy of those types is current (UPDATE_CLIENT_TYPES=1 writes it).
# Needs `npm run build` first. Runs offline: telemetry and update checks are off.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
node --input-type=module -e "
import fs from 'node:fs';
const { openApiDocument } = await import('$root/dist/http/openapi.js');
fs.writeFileSync('$out/openapi.json', JSON.stringify(openApiDocument(), null, 2));
"
cd "$here"
# The workspace's own tools first: its tsc is TypeScript 5; npm may hoist the others to the root.
PATH="$here/node_modules/.bin:$root/node_modules/.bin:$PATH"
status=0
redocly lint --config redocly.yaml --max-problems 50 "$out/openapi.json" >"$out/lint.txt" 2>&1 || status=$?
grep -v '[║╔╚]' "$out/lint.txt" | grep -v '^ *$' || true
# Warnings fail the check too: each rule we do not follow is switched off in redocly.yaml with its reason.
if [ "$status" -ne 0 ] || grep -Eq '[0-9]+ warnings?\.' "$out/lint.txt"; then
  echo "openapi: redocly lint found problems" >&2
  exit 1
fi
mkdir -p generated
openapi-typescript "$out/openapi.json" -o generated/openapi.d.ts
# The client package (packages/client) ships these types: its committed copy must be current.
client_types="$root/packages/client/src/generated/openapi.ts"
if [ "${UPDATE_CLIENT_TYPES:-}" = 1 ]; then
  cp generated/openapi.d.ts "$client_types"
elif ! cmp -s generated/openapi.d.ts "$client_types"; then
  echo "openapi: packages/client/src/generated/openapi.ts is stale; run npm run generate:client" >&2
  exit 1
fi
# The generated types, and a client's use of them (usage.ts), under TypeScript 5.
tsc -p tsconfig.json
echo "openapi: lint clean, types generated and checked"
