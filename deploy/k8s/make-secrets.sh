#!/usr/bin/env bash
# Makes the secrets that deploy/k8s/base/kustomization.yaml's secretGenerator reads, one file each,
# in deploy/k8s/base/secrets/ (git ignores it) or the directory given as the first argument. Like
# docker/secrets.sh for Compose: every value is random (32 bytes from /dev/urandom, Base64;
# passwords without '/', '+' and '=' so that no connection string needs escaping), a file that
# exists is never overwritten, and running it again changes nothing. Delete a file to make it
# anew; `kubectl apply -k deploy/k8s` then creates a Secret of a new name, the service's pods roll
# and the operator sets the new password.
#
#   bash deploy/k8s/make-secrets.sh
#   bash deploy/k8s/make-secrets.sh --rotate-token-key   # a new signing key; the current one is
#                                                        # still accepted, older ones are dropped
set -euo pipefail

rotate=
if [ "${1:-}" = --rotate-token-key ]; then
	rotate=1
	shift
fi
dir=${1:-$(cd "$(dirname "$0")" && pwd)/base/secrets}

password() { head -c 32 /dev/urandom | base64 | tr -d '/+=\n'; }
key() { head -c 32 /dev/urandom | base64 | tr -d '\n'; }
# The key id: 1 to 64 of A-Z a-z 0-9 . _ - (auth/AuthProperties); when it was made, and a
# random part so that two made in one second differ.
key_id() { printf 'k%s-%s' "$(date -u +%Y%m%d%H%M%S)" "$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }
token_keys() { printf '%s:%s' "$(key_id)" "$(key)"; }

mkdir -p "$dir"
chmod 700 "$dir"
umask 077

made=()
make() {
	local name=$1 generator=$2
	if [ ! -s "$dir/$name" ]; then
		"$generator" > "$dir/$name.tmp"
		mv "$dir/$name.tmp" "$dir/$name"
		made+=("$name")
	fi
}
make db-owner-password.txt password
make db-app-password.txt password
make token-keys.txt token_keys

if [ -n "$rotate" ] && [[ ! " ${made[*]-} " == *" token-keys.txt "* ]]; then
	# The new key first (it signs), the current one second (still accepted until its tokens
	# expire, app.auth.token-ttl); any older one is dropped.
	current=$(cut -d, -f1 "$dir/token-keys.txt")
	printf '%s,%s' "$(token_keys)" "$current" > "$dir/token-keys.txt.tmp"
	mv "$dir/token-keys.txt.tmp" "$dir/token-keys.txt"
	made+=("token-keys.txt (rotated)")
fi

if [ ${#made[@]} -eq 0 ]; then
	echo "make-secrets.sh: every secret exists in $dir; nothing changed"
else
	echo "make-secrets.sh: made ${made[*]} in $dir"
fi
