#!/usr/bin/env bash
# Validate the Kubernetes manifests in deploy/k8s/ against the Kubernetes API's schemas,
# offline: kubernetes-validate bundles the schemas, so after its first install (into a venv
# kept under $TMPDIR) no network and no cluster is needed.
#
#   scripts/validate-k8s.sh                       # every deploy/k8s/*.yaml
#   K8S_VERSIONS="1.33.0" scripts/validate-k8s.sh # other Kubernetes versions (space-separated)
#
# --strict rejects fields the API does not have (a typo such as `replica:` would otherwise
# pass). Before trusting a pass, the script checks that the validator fails on two broken
# copies of serve.yaml (a wrong type, an unknown field); if either passes, so does nothing.
set -euo pipefail

cd "$(dirname "$0")/.."

VALIDATOR_VERSION=1.37.0
# The oldest version the manifests are meant for, and the newest the validator bundles.
K8S_VERSIONS=${K8S_VERSIONS:-"1.33.0 1.37.0"}
VENV=${TMPDIR:-/tmp}/k8s-validate-venv
KV=$VENV/bin/kubernetes-validate

now() { date +%s.%N; }
started=$(now)

installed=$("$VENV/bin/python" -c \
  'import importlib.metadata as m; print(m.version("kubernetes-validate"))' 2>/dev/null || true)
if [[ $installed != "$VALIDATOR_VERSION" ]]; then
  echo "installing kubernetes-validate==$VALIDATOR_VERSION into $VENV"
  "$VENV/bin/python" -c '' 2>/dev/null || python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "kubernetes-validate==$VALIDATOR_VERSION"
fi

# validate FILE: the validator's messages on stdout; its status as the function's.
validate() {
  local file=$1 v out status=0
  for v in $K8S_VERSIONS; do
    out=$("$KV" --strict --quiet -k "$v" "$file" 2>&1) || status=1
    [[ -z $out ]] || printf '%s\n' "$out"
  done
  return "$status"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/validate-k8s.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Self-check: the validator must be able to fail.
self_check() {
  local name=$1 expr=$2 copy=$work/$1.yaml out
  sed -e "$expr" deploy/k8s/serve.yaml >"$copy"
  if cmp -s "$copy" deploy/k8s/serve.yaml; then
    echo "self-check $name: the substitution changed nothing (serve.yaml changed?)" >&2
    return 1
  fi
  if out=$(validate "$copy"); then
    echo "self-check $name: a broken serve.yaml PASSED; the validation proves nothing" >&2
    return 1
  fi
  # Rejected for the schema's reason, not because the validator could not run.
  if ! grep -q 'did not validate' <<<"$out"; then
    printf 'self-check %s: the validator failed without validating:\n%s\n' "$name" "$out" >&2
    return 1
  fi
  echo "self-check: broken copy rejected ($name): $(grep -m1 -o 'spec[.:].*' <<<"$out")"
}
self_check wrong-type 's/^  replicas: 2$/  replicas: "two"/'
self_check unknown-field 's/^  replicas: 2$/  replica: 2/'

shopt -s nullglob
files=(deploy/k8s/*.yaml)
if ((${#files[@]} == 0)); then
  echo "no deploy/k8s/*.yaml found" >&2
  exit 1
fi

failed=0
resources=0
for f in "${files[@]}"; do
  n=$(grep -c '^kind:' "$f" || true)
  resources=$((resources + n))
  if out=$(validate "$f"); then
    printf 'ok    %s (%d resources)\n' "$f" "$n"
  else
    printf 'FAIL  %s\n' "$f"
    printf '%s\n' "$out" | sed 's/^/      /'
    failed=$((failed + 1))
  fi
done

elapsed=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "${#files[@]} files, $resources resources, Kubernetes ${K8S_VERSIONS// /, } (strict):" \
  "$((${#files[@]} - failed)) passed, $failed failed in ${elapsed}s"
((failed == 0))
