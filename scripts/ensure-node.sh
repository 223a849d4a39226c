#!/bin/sh
# Node.js 24 LTS where the running Node is older, from the npm registry alone: the package
# node-linux-<arch> holds bin/node and include/node (the headers native addons such as
# better-sqlite3 build against). It goes into .node/ in the repository (ignored by git), checked
# by npm's integrity hash like any package, and this prints the two settings a shell needs:
#
#   eval "$(sh scripts/ensure-node.sh)"
#
# With Node 24 or later already running it installs nothing and prints nothing. `.ci/run` runs it.
set -eu
PINNED=24.22.3
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.node"

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge 24 ]; then exit 0; fi

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ensure-node: no Node.js package for $(uname -m); install Node.js 24 LTS (https://nodejs.org)" >&2; exit 1 ;;
esac

if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" -p process.versions.node 2>/dev/null)" != "$PINNED" ]; then
  echo "ensure-node: Node.js $(node -v 2>/dev/null || echo 'is missing') is too old; installing Node.js $PINNED from the npm registry into .node/" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$PINNED" >/dev/null)
  mkdir -p "$tmp/unpacked"
  tar xzf "$tmp/node-linux-$arch-$PINNED.tgz" -C "$tmp/unpacked" --strip-components=1
  "$tmp/unpacked/bin/node" -e '' || { echo "ensure-node: the installed Node.js does not run on this machine" >&2; exit 1; }
  rm -rf "$dir"
  mv "$tmp/unpacked" "$dir"
fi
echo "export PATH=\"$dir/bin:\$PATH\" npm_config_nodedir=\"$dir\""
