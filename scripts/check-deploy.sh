#!/usr/bin/env bash
# Checks the compute tier's deployment files without a cluster or a container engine
# (docs/COMPUTE-SERVER.md, "Kubernetes"): every manifest of deploy/kubernetes/ against the
# Kubernetes schemas (PyPI's kubernetes-validate, --strict: unknown fields are errors), and the
# manifests and deploy/Containerfile against checkov's security policies. Any failure fails.
#
# Usage: scripts/check-deploy.sh [DIR]     check DIR's *.yaml and Containerfile (default: deploy/)
#        scripts/check-deploy.sh --self-test   feed it broken files and check that each is caught
#
# The tools are installed, pinned, into a virtual environment under .build/ the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/deploy-check-venv
if [[ ! -x "$venv/bin/checkov" || ! -x "$venv/bin/kubernetes-validate" ]]; then
    echo "check-deploy: installing kubernetes-validate and checkov into $venv (once; a few minutes)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==1.37.0" "checkov==3.3.30"
fi

# check DIR: the manifests in DIR/kubernetes and DIR/Containerfile.
check() {
    local dir="$1" failed=0
    for manifest in "$dir"/kubernetes/*.yaml; do
        [[ "$(basename "$manifest")" == kustomization.yaml ]] && continue
        if ! "$venv/bin/kubernetes-validate" --strict --quiet "$manifest"; then
            echo "check-deploy: $manifest does not match the Kubernetes schemas" >&2
            failed=1
        fi
    done
    if ! "$venv/bin/checkov" --quiet --compact --skip-download --framework kubernetes -d "$dir/kubernetes" >"$dir/.checkov-kubernetes.txt" 2>&1 \
       || grep -q "There are no runners to run" "$dir/.checkov-kubernetes.txt"; then
        cat "$dir/.checkov-kubernetes.txt" >&2
        echo "check-deploy: checkov's Kubernetes policies fail for $dir/kubernetes" >&2
        failed=1
    fi
    # checkov knows container files by the name Dockerfile only: it scans a copy of that name.
    local copy
    copy="$(mktemp -d)"
    cp "$dir/Containerfile" "$copy/Dockerfile"
    if ! "$venv/bin/checkov" --quiet --compact --skip-download --framework dockerfile -f "$copy/Dockerfile" >"$dir/.checkov-dockerfile.txt" 2>&1 \
       || grep -q "There are no runners to run" "$dir/.checkov-dockerfile.txt"; then
        cat "$dir/.checkov-dockerfile.txt" >&2
        echo "check-deploy: checkov's container-file policies fail for $dir/Containerfile" >&2
        failed=1
    fi
    rm -rf "$copy" "$dir/.checkov-kubernetes.txt" "$dir/.checkov-dockerfile.txt"
    return "$failed"
}

if [[ "${1:-}" == --self-test ]]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    # Each case: a sed expression breaking one file, and the file.
    cases=(
        's/replicas: 2/replicas: two/|kubernetes/deployment.yaml|a field of the wrong type'
        's/  minAvailable: 1/  minAvailable: 1\n  maxUnavailabel: 1/|kubernetes/pdb.yaml|a misspelt field'
        's/allowPrivilegeEscalation: false/allowPrivilegeEscalation: true/|kubernetes/deployment.yaml|privilege escalation allowed'
        's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/|kubernetes/deployment.yaml|a writable root filesystem'
        's/^USER 10001:10001$/USER root/|Containerfile|a container file that runs as root'
    )
    for case in "${cases[@]}"; do
        IFS='|' read -r edit file what <<<"$case"
        rm -rf "$work/deploy" && cp -r deploy "$work/deploy"
        sed -i "$edit" "$work/deploy/$file"
        if cmp -s "deploy/$file" "$work/deploy/$file"; then
            echo "check-deploy self-test: the edit for '$what' changed nothing in $file" >&2
            exit 1
        fi
        if check "$work/deploy" 2>/dev/null; then
            echo "check-deploy self-test: $what ($file) was not caught" >&2
            exit 1
        fi
        echo "check-deploy self-test: caught $what ($file)"
    done
    echo "check-deploy self-test: every broken file was caught"
    exit 0
fi

dir="${1:-deploy}"
check "$dir"
echo "check-deploy: $dir/kubernetes and $dir/Containerfile pass the Kubernetes schemas and checkov's policies"
