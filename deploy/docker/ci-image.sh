#!/usr/bin/env bash
# Builds the image users build (the root Dockerfile) on a machine that cannot pull images: the
# Debian engine (docker.io), a bookworm base made here with debootstrap from the configured apt
# mirror and tagged as the Dockerfile's base, and the release binary this machine just built
# (BINARY_FROM=prebuilt; the runtime stages are the ones users get). Used by .ci/run before the
# tests; tests/all/deploy.rs runs the image. Usage: deploy/docker/ci-image.sh BINARY [TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."
BINARY="${1:?usage: deploy/docker/ci-image.sh path/to/llm-in-sandbox [tag]}"
TAG="${2:-llm-in-sandbox:ci}"
# Debian's client: another `docker` earlier on PATH may lack BuildKit's builder.
DOCKER=/usr/bin/docker
export DEBIAN_FRONTEND=noninteractive
step() { echo "ci-image: $*" >&2; }

need=()
[ -x "$DOCKER" ] && command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if ((${#need[@]})); then
  step "installing ${need[*]}"
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! "$DOCKER" info >/dev/null 2>&1; then
  step "starting dockerd"
  setsid nohup dockerd >/tmp/dockerd.log 2>&1 </dev/null &
  for _ in $(seq 300); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 0.2; done
  "$DOCKER" info >/dev/null 2>&1 || { tail -30 /tmp/dockerd.log; echo "dockerd did not start"; exit 1; }
fi

# Whatever the script leaves in the build context goes away, even when a step fails.
cleanup() { rm -f deploy/docker/ca/*.crt deploy/docker/prebuilt/llm-in-sandbox; }
trap cleanup EXIT

BASE=debian:bookworm-slim
if ! "$DOCKER" image inspect "$BASE" >/dev/null 2>&1; then
  # The configured Debian mirror (deb822 `URIs:`, else a one-line `deb [options] URL`), or
  # DEBIAN_MIRROR. debootstrap needs a plain http(s) URL.
  mirror="${DEBIAN_MIRROR:-}"
  [ -n "$mirror" ] || mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
  case "$mirror" in
    http://*|https://*) ;;
    *) echo "ci-image: no plain http(s) Debian mirror found in apt's sources ('$mirror'): set DEBIAN_MIRROR"; exit 1 ;;
  esac
  # tmpfs is about twice as fast (dpkg syncs), but debootstrap refuses a nodev mount.
  if findmnt -no OPTIONS /dev/shm 2>/dev/null | grep -qvw nodev; then
    root=$(mktemp -d /dev/shm/bookworm.XXXX)
  else
    root=$(mktemp -d /var/tmp/bookworm.XXXX)
  fi
  step "making $BASE with debootstrap from $mirror (30-70 s)"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/tmp/debootstrap.log 2>&1 \
    || { tail -30 /tmp/debootstrap.log; echo "ci-image: debootstrap failed"; exit 1; }
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
    "$root"/usr/share/man/* "$root"/var/log/*
  : >"$root"/etc/resolv.conf
  # The same mirror with bookworm's updates and security suites.
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" \
    >"$root"/etc/apt/sources.list
  # As the published slim image: no downloaded packages left in layers, no recommends.
  printf '%s\n' 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };' \
    'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";' >"$root"/etc/apt/apt.conf.d/docker-clean
  echo 'APT::Install-Recommends "false";' >"$root"/etc/apt/apt.conf.d/docker-no-recommends
  tar --numeric-owner -C "$root" -c . | "$DOCKER" import -c 'CMD ["bash"]' -c 'ENV LANG=C.UTF-8' - "$BASE" >/dev/null
  rm -rf "$root"
fi

# Stripped: the release profile keeps line tables for profiles, which the image need not carry.
install -m 755 -s "$BINARY" deploy/docker/prebuilt/llm-in-sandbox
# This machine's HTTPS goes through an intercepting proxy whose CA only its own trust store
# holds: the setup stage needs it to download the runtime (it never reaches the image).
rm -f deploy/docker/ca/*.crt
for crt in /usr/local/share/ca-certificates/*.crt; do [ -e "$crt" ] && cp "$crt" deploy/docker/ca/; done
start=$(date +%s)
step "building $TAG"
DOCKER_BUILDKIT=1 "$DOCKER" build --progress=plain --build-arg BINARY_FROM=prebuilt -t "$TAG" . \
  >/tmp/ci-image-build.log 2>&1 || { tail -60 /tmp/ci-image-build.log; exit 1; }
size=$("$DOCKER" image inspect -f '{{.Size}}' "$TAG")
step "built $TAG in $(($(date +%s) - start)) s, $((size / 1048576)) MiB"
