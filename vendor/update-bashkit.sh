#!/usr/bin/env bash
# Move vendor/bashkit to another published bashkit version with vendor/bashkit.patch
# re-applied, or check that vendor/bashkit is exactly the pinned version plus the patch.
#
#   vendor/update-bashkit.sh VERSION            # replace vendor/bashkit, bump the pin
#   vendor/update-bashkit.sh VERSION --check    # fetch, patch and diff against vendor/bashkit
#                                               # (for the pinned version the diff is empty)
#   vendor/update-bashkit.sh --diff             # regenerate vendor/bashkit.patch from the
#                                               # pinned upstream and vendor/bashkit
#
# The source comes through cargo's own client: a throwaway project that depends on
# `bashkit = "=VERSION"` and `cargo fetch`, then the unpacked crate in cargo's registry
# folder. When the patch no longer applies, the script stops, keeps the upstream source in
# a temporary folder and says so: port the change there, then run --diff.
set -euo pipefail

usage() {
    sed -n '2,10p' "$0" >&2
    exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$root/vendor
cargo_home=${CARGO_HOME:-$HOME/.cargo}
work=$(mktemp -d "${TMPDIR:-/tmp}/update-bashkit.XXXXXX")
trap 'rm -rf "$work"' EXIT

pinned=$(sed -n 's/^bashkit = { version = "=\([0-9.]*\)".*/\1/p' "$root/Cargo.toml")
[ -n "$pinned" ] || {
    echo "cannot find the bashkit pin in Cargo.toml" >&2
    exit 1
}

[ $# -ge 1 ] || usage
if [ "$1" = --diff ]; then
    version=$pinned
    mode=--diff
else
    version=$1
    mode=${2:-update}
fi
case "$mode" in
    update | --check | --diff) ;;
    *) usage ;;
esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
    echo "not a version: $version" >&2
    exit 2
}

# 1. The published crate, through cargo.
mkdir -p "$work/fetch/src"
cat >"$work/fetch/Cargo.toml" <<TOML
[package]
name = "fetch-bashkit"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
bashkit = { version = "=$version", default-features = false }

[workspace]
TOML
: >"$work/fetch/src/lib.rs"
echo "fetching bashkit $version with cargo..." >&2
cargo fetch --quiet --manifest-path "$work/fetch/Cargo.toml"
upstream=$work/upstream/bashkit
mkdir -p "$work/upstream"
src=$(compgen -G "$cargo_home/registry/src/*/bashkit-$version" | head -n 1 || true)
if [ -n "$src" ] && [ -f "$src/Cargo.toml" ]; then
    cp -a "$src" "$upstream"
else
    archive=$(compgen -G "$cargo_home/registry/cache/*/bashkit-$version.crate" | head -n 1 || true)
    [ -n "$archive" ] || {
        echo "cargo fetched bashkit $version but its source is not under $cargo_home/registry" >&2
        exit 1
    }
    tar -xzf "$archive" -C "$work/upstream"
    mv "$work/upstream/bashkit-$version" "$upstream"
fi
rm -f "$upstream/.cargo-ok"

if [ "$mode" = --diff ]; then
    # diff exits 1 when the trees differ, which they do.
    (cd "$work/upstream" && cp -a "$vendor/bashkit" "$work/vendored" &&
        diff -ruN bashkit ../vendored >"$vendor/bashkit.patch.new") || [ $? -eq 1 ]
    sed -i -e 's|^--- bashkit/|--- a/|' -e 's|^+++ \.\./vendored/|+++ b/|' "$vendor/bashkit.patch.new"
    mv "$vendor/bashkit.patch.new" "$vendor/bashkit.patch"
    echo "vendor/bashkit.patch regenerated: $(grep -c '^+++ ' "$vendor/bashkit.patch") files" >&2
    exit 0
fi

# 2. The patch on a copy.
patched=$work/patched/bashkit
mkdir -p "$work/patched"
cp -a "$upstream" "$patched"
if ! patch --quiet --forward --batch --no-backup-if-mismatch -p1 -d "$patched" \
    <"$vendor/bashkit.patch"; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/bashkit-$version-upstream.XXXXXX")
    cp -a "$upstream/." "$keep/"
    echo "vendor/bashkit.patch does not apply to bashkit $version (see the rejects above)." >&2
    echo "The upstream source is in $keep: port the change there and regenerate the patch." >&2
    exit 1
fi

if [ "$mode" = --check ]; then
    echo "diff -r <bashkit $version + bashkit.patch> vendor/bashkit:" >&2
    if diff -r "$patched" "$vendor/bashkit"; then
        echo "identical: vendor/bashkit is bashkit $version with vendor/bashkit.patch" >&2
        exit 0
    fi
    exit 1
fi

# 3. Replace the vendored crate and move the pin.
rm -rf "${vendor:?}/bashkit"
cp -a "$patched" "$vendor/bashkit"
if [ "$pinned" != "$version" ]; then
    sed -i "s/^bashkit = { version = \"=$pinned\"/bashkit = { version = \"=$version\"/" "$root/Cargo.toml"
    echo "pin moved from =$pinned to =$version in Cargo.toml" >&2
fi
echo "vendor/bashkit is now bashkit $version with vendor/bashkit.patch; run the tests" >&2
