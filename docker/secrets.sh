#!/usr/bin/env bash
# Makes the secrets of the compose deployments, one file each, in a directory outside git
# (default .secrets/ beside docker-compose.yml; SECRETS_DIR or the first argument names
# another). Both compose files read them from there as Compose `secrets:`; nothing secret is
# in the repository, in .env.example or in an image.
#
#   bash docker/secrets.sh                 # makes what is missing, keeps what exists
#   bash docker/secrets.sh /path/to/dir    # elsewhere (then SECRETS_DIR=/path/to/dir for compose)
#   bash docker/secrets.sh --rotate-token-key
#                                          # a new current token key; the previous one is
#                                          # still accepted, older ones are dropped
#
# Every value is random: 32 bytes from /dev/urandom, Base64 (passwords without '/', '+' and
# '=' so that no URL or connection string needs escaping). A file that exists is never
# overwritten, so running it again changes nothing; delete a file to make it anew (a database
# password only takes effect on a fresh volume: the roles are made at initialisation).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

rotate=
if [ "${1:-}" = --rotate-token-key ]; then
	rotate=1
	shift
fi
dir=${1:-${SECRETS_DIR:-$root/.secrets}}

password() { head -c 32 /dev/urandom | base64 | tr -d '/+=\n'; }
key() { head -c 32 /dev/urandom | base64 | tr -d '\n'; }
key_id() { printf 'k%s-%s' "$(date -u +%Y%m%d%H%M%S)" "$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }

# The directory is the owner's alone; the files are readable inside the containers, whose
# processes run as other users (the service as uid 10001, PostgreSQL as postgres).
mkdir -p "$dir"
chmod 700 "$dir"
umask 022

made=()
make() {
	local name=$1 generator=$2
	if [ ! -s "$dir/$name" ]; then
		"$generator" > "$dir/$name.tmp"
		mv "$dir/$name.tmp" "$dir/$name"
		made+=("$name")
	fi
}
token_keys() { printf '%s:%s' "$(key_id)" "$(key)"; }

make postgres-password password
make replication-password password
make app-db-password password
make app-db-migration-password password
make token-keys token_keys
make patroni-restapi-password password
make etcd-root-password password
make etcd-patroni-password password
make grafana-admin-password password

if [ -n "$rotate" ] && [[ ! " ${made[*]-} " == *" token-keys "* ]]; then
	# The new key first (it signs), the current one second (still accepted until its tokens
	# expire, app.auth.token-ttl); any older one is dropped.
	current=$(cut -d, -f1 "$dir/token-keys")
	printf '%s,%s' "$(token_keys)" "$current" > "$dir/token-keys.tmp"
	mv "$dir/token-keys.tmp" "$dir/token-keys"
	made+=("token-keys (rotated)")
fi

if [ ${#made[@]} -eq 0 ]; then
	echo "secrets.sh: every secret exists in $dir; nothing changed"
else
	echo "secrets.sh: made ${made[*]} in $dir"
fi
