#!/usr/bin/env bash
# Builds the Containerfile with buildah on a machine that reaches no image registry (CI, and the
# image test, test/image/image.test.ts): the base is the local stand-in for the official Node image
# (scripts/image/build-base.sh), the build runs with chroot isolation. Prints the image's name.
#
#   bash scripts/image/build.sh [NODE_MAJOR]      (default 22)
#
# The name holds a hash of the base and of every file of the build context (the paths
# .dockerignore lets in): when an image of these exact inputs is in buildah's storage, nothing is
# built. Otherwise buildah builds with its layer cache (--layers), so a change of the sources alone
# reuses the dependencies' layers, and the images of other inputs are removed afterwards (the build
# stage is kept, named, as the cache).
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_MAJOR="${1:-22}"
base="$(bash scripts/image/build-base.sh "$NODE_MAJOR")"

mapfile -t paths < <(sed -n 's/^!//p' .dockerignore)
hash="$(
  {
    echo "$base"
    find "${paths[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-16
)"
image="localhost/lockcloud:ci-node$NODE_MAJOR-$hash"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "$image"
  exit 0
fi

lock="${XDG_CACHE_HOME:-$HOME/.cache}/lockcloud/image-build.lock"
mkdir -p "$(dirname "$lock")"
exec 9>"$lock"
flock 9
if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "$image"
  exit 0
fi

# The npm registry may sit behind a TLS-intercepting proxy whose certificate authority this
# machine's npm trusts through its `cafile` setting: the build trusts it too, through a directory
# mounted over /tmp during its RUN steps (over a directory the base has, so that no mount point is
# left in a layer) and the NODE_EXTRA_CA_CERTS build argument. Nothing of it stays in the image.
mounts=()
build_args=(--build-arg "BASE=$base")
cafile="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ "$cafile" != undefined ] && [ -f "$cafile" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  chmod 1777 "$tmp"
  cp "$cafile" "$tmp/lockcloud-build-ca.pem"
  mounts+=(-v "$tmp:/tmp")
  build_args+=(--build-arg NODE_EXTRA_CA_CERTS=/tmp/lockcloud-build-ca.pem)
fi

echo "build: $image from $base" >&2
started=$SECONDS
bud=(buildah bud --isolation chroot --format docker --layers --pull=never "${build_args[@]}" "${mounts[@]}" -f Containerfile)
# The build stage first, under a name of its own: its layers (the toolchain, the dependencies with
# better-sqlite3 compiled) are the cache of the next build, and a named image's layers survive the
# pruning below, which takes every unnamed one.
stage="localhost/lockcloud:ci-node$NODE_MAJOR-build"
"${bud[@]}" --target build -t "$stage" . >&2
"${bud[@]}" -t "$image" . >&2
echo "build: $image built in $((SECONDS - started)) s" >&2

# One image of this Node line is enough: the others go, with the layers only they used.
for other in $(buildah images --format '{{.Name}}:{{.Tag}}' | grep -E "^localhost/lockcloud:ci-node$NODE_MAJOR-" || true); do
  [ "$other" = "$image" ] || [ "$other" = "$stage" ] || buildah rmi "$other" >/dev/null 2>&1 || true
done
buildah rmi --prune >/dev/null 2>&1 || true
echo "$image"
