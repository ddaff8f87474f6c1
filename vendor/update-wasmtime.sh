#!/usr/bin/env bash
# Move vendor/wasmtime, vendor/wasmtime-wasi and vendor/wasmtime-internal-cranelift to another
# published version, with our patches re-applied, and measure the slot-reuse figure with the
# upstream crates and with the patched
# ones.
#
#   vendor/update-wasmtime.sh VERSION            # replace both crates, bump the pins,
#                                                # build twice, print both figures
#   vendor/update-wasmtime.sh VERSION --check    # only fetch, patch and diff against the
#                                                # current vendor/ crates (no build); for
#                                                # the pinned version the diff is empty
#   vendor/update-wasmtime.sh VERSION --no-bench # replace and patch, no builds
#
# The crates' source comes through cargo's own client: a throwaway project that depends on
# `wasmtime` and `wasmtime-wasi` `=VERSION` and `cargo fetch`, then the unpacked source (or
# the downloaded .crate archive) in cargo's registry folder. The figure is benches/slot_reuse.sh run by
# `llm-in-sandbox exec --bash` (microseconds per `python3 -c 'print(1)'`, see vendor/README.md).
#
# When a patch no longer applies, the script stops with the upstream source in place under
# a temporary folder and says which hunk failed: port the change by hand, then regenerate
# vendor/CRATE.patch with `diff -ru upstream patched`.
set -euo pipefail

usage() {
    sed -n '2,11p' "$0" >&2
    exit 2
}

[ $# -ge 1 ] || usage
version=$1
mode=${2:-update}
case "$mode" in
    update | --check | --no-bench) ;;
    *) usage ;;
esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
    echo "not a version: $version" >&2
    exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$root/vendor
cargo_home=${CARGO_HOME:-$HOME/.cargo}
work=$(mktemp -d "${TMPDIR:-/tmp}/update-wasmtime.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The vendored crates, each with its patch: vendor/CRATE is CRATE VERSION + vendor/CRATE.patch.
crates=(wasmtime wasmtime-wasi wasmtime-internal-cranelift)

# 1. Fetch the published crates with cargo (no features: only their required deps).
mkdir -p "$work/fetch/src"
cat >"$work/fetch/Cargo.toml" <<EOF
[package]
name = "fetch-wasmtime"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
wasmtime = { version = "=$version", default-features = false }
wasmtime-wasi = { version = "=$version", default-features = false }
wasmtime-internal-cranelift = { version = "=$version", default-features = false }

[workspace]
EOF
: >"$work/fetch/src/lib.rs"
echo "fetching ${crates[*]} $version with cargo..." >&2
cargo fetch --quiet --manifest-path "$work/fetch/Cargo.toml"

# 2. Unpack each and re-apply its patch to a copy.
mkdir -p "$work/upstream" "$work/patched"
for crate in "${crates[@]}"; do
    upstream=$work/upstream/$crate
    src=$(compgen -G "$cargo_home/registry/src/*/$crate-$version" | head -n 1 || true)
    if [ -n "$src" ] && [ -f "$src/Cargo.toml" ]; then
        cp -a "$src" "$upstream"
    else
        archive=$(compgen -G "$cargo_home/registry/cache/*/$crate-$version.crate" | head -n 1 || true)
        [ -n "$archive" ] || {
            echo "cargo fetched $crate $version but its source is not under $cargo_home/registry" >&2
            exit 1
        }
        tar -xzf "$archive" -C "$work/upstream"
        mv "$work/upstream/$crate-$version" "$upstream"
    fi
    # cargo's unpack marker is not part of the crate.
    rm -f "$upstream/.cargo-ok"
    patched=$work/patched/$crate
    cp -a "$upstream" "$patched"
    if ! patch --quiet --forward --batch --no-backup-if-mismatch -p1 -d "$patched" \
        <"$vendor/$crate.patch"; then
        keep=$(mktemp -d "${TMPDIR:-/tmp}/$crate-$version-upstream.XXXXXX")
        cp -a "$upstream/." "$keep/"
        echo "vendor/$crate.patch does not apply to $crate $version (see the rejects above)." >&2
        echo "The upstream source is in $keep: port the change there and regenerate the patch." >&2
        exit 1
    fi
done

if [ "$mode" = --check ]; then
    status=0
    for crate in "${crates[@]}"; do
        echo "diff -r <$crate $version + $crate.patch> vendor/$crate:" >&2
        if diff -r "$work/patched/$crate" "$vendor/$crate"; then
            echo "identical: vendor/$crate is $crate $version with vendor/$crate.patch" >&2
        else
            status=1
        fi
    done
    exit $status
fi

# 3. Point the build at the new version: every `=OLD` pin of the wasmtime crates.
old=$(sed -n 's/^wasmtime = { version = "=\([0-9.]*\)".*/\1/p' "$root/Cargo.toml")
[ -n "$old" ] || {
    echo "cannot find the wasmtime pin in Cargo.toml" >&2
    exit 1
}
if [ "$old" != "$version" ]; then
    sed -i -E "s/^((wasmtime|wasmtime-wasi|wiggle|wasmtime-wizer) = \{ version = \")=$old\"/\1=$version\"/" \
        "$root/Cargo.toml"
    sed -i "s/^# wasmtime $old with/# wasmtime $version with/" "$root/Cargo.toml"
    # The compiled-module cache key and the snapshot recipe name the version too.
    sed -i "s/^pub const WASMTIME_VERSION: &str = \"$old\";/pub const WASMTIME_VERSION: \&str = \"$version\";/" \
        "$root/src/runtime/cache.rs"
    sed -i "s/^const WIZER_VERSION: &str = \"$old\";/const WIZER_VERSION: \&str = \"$version\";/" \
        "$root/src/runtime/preload.rs"
    echo "pins moved from =$old to =$version in Cargo.toml, src/runtime/cache.rs and" \
        "src/runtime/preload.rs (check the rust-version it needs)" >&2
fi

# $1: extra cargo arguments (the upstream crates lack our patches' methods: the crate's
# `stock-wasmtime` feature builds without them).
slot_reuse() {
    # shellcheck disable=SC2086
    (cd "$root" && cargo build --release --quiet --bin llm-in-sandbox $1)
    "$root/target/release/llm-in-sandbox" exec --bash "$(cat "$root/benches/slot_reuse.sh")"
}

# The upstream crates (or the patched ones) into vendor/.
use_crates() {
    for crate in "${crates[@]}"; do
        rm -rf "${vendor:?}/$crate"
        cp -a "$work/$1/$crate" "$vendor/$crate"
    done
}

if [ "$mode" = update ]; then
    # 4. The figure with the upstream crates, then with the patches.
    use_crates upstream
    echo "== slot reuse, upstream wasmtime $version ==" >&2
    before=$(slot_reuse "--features stock-wasmtime")
    use_crates patched
    echo "== slot reuse, patched wasmtime $version ==" >&2
    after=$(slot_reuse "")
    printf '\nupstream wasmtime %s:\n%s\n\npatched (vendor/*.patch):\n%s\n' \
        "$version" "$before" "$after"
else
    use_crates patched
fi
echo "vendor/{${crates[*]}} are now $version with their patches" >&2
