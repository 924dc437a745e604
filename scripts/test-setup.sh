#!/usr/bin/env bash
# What the tests need on this machine, started when it is down and installed when it is missing;
# quick when everything is there. scripts/run-tests.mjs runs it before integration or system tests
# (so `npm test` does), and .ci/run through `npm test`.
#
#   bash scripts/test-setup.sh integration   the machine's Redis (127.0.0.1:6379), Mosquitto
#                                            (127.0.0.1:1883) and PostgreSQL (127.0.0.1:5432, trust)
#   bash scripts/test-setup.sh system        the same, Debian's Chromium at /usr/bin/chromium, and
#                                            buildah and mmdebstrap (the container image's test)
#
# Each test uses its own key prefix, topic prefix or database on these servers and cleans up. A
# server named by LOCKCLOUD_TEST_REDIS_URL or LOCKCLOUD_TEST_PG_URL is not started here.
set -euo pipefail
tier="${1:-system}"
case "$tier" in
  integration | system) ;;
  *)
    echo "usage: bash scripts/test-setup.sh integration|system" >&2
    exit 2
    ;;
esac

# apt-get and the servers' own tools want root; sudo when it is there and we are not.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "test-setup: '$*' needs root" >&2
    return 1
  fi
}

# Waits up to 10 s for "$@" to succeed.
wait_for() {
  for _ in $(seq 1 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

# The Redis tests talk to the machine's server at 127.0.0.1:6379 (their own key prefix each).
if [ -z "${LOCKCLOUD_TEST_REDIS_URL:-}" ] && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "== starting redis"
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  wait_for redis-cli -h 127.0.0.1 -p 6379 ping || { echo "test-setup: redis did not start" >&2; exit 1; }
fi

# The device-link tests talk to the machine's Mosquitto at 127.0.0.1:1883 (their own topic prefix
# each); some start Mosquitto processes of their own on free ports.
mosquitto_up() { (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; }
if ! mosquitto_up; then
  echo "== starting mosquitto"
  as_root mosquitto -d -c /etc/mosquitto/mosquitto.conf
  wait_for mosquitto_up || { echo "test-setup: mosquitto did not start" >&2; exit 1; }
fi

# The PostgreSQL tests talk to the machine's server at 127.0.0.1:5432 (trust authentication) and
# create and drop a database of their own per run.
if [ -z "${LOCKCLOUD_TEST_PG_URL:-}" ] && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "== starting postgresql"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  wait_for pg_isready -q -h 127.0.0.1 -p 5432 || { echo "test-setup: postgresql did not start" >&2; exit 1; }
fi

# Chromium for the dashboard's browser tests: Playwright drives Debian's chromium at /usr/bin/chromium
# (test/dashboard/support.ts); npm never downloads a browser.
if [ "$tier" = system ] && [ ! -x /usr/bin/chromium ]; then
  echo "== installing chromium (apt-get)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi

# buildah and mmdebstrap for the container image's test (test/image): the image is built with buildah
# (chroot isolation, no container engine) on a base that mmdebstrap makes from Debian's packages
# (scripts/image/build-base.sh). Where they cannot be installed the test says so and is skipped,
# except in CI, where it fails.
if [ "$tier" = system ] && { ! command -v buildah >/dev/null || ! command -v mmdebstrap >/dev/null; }; then
  echo "== installing buildah and mmdebstrap (apt-get)"
  if ! { as_root apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah mmdebstrap; }; then
    echo "test-setup: could not install buildah and mmdebstrap: test/image will not run" >&2
  fi
fi
