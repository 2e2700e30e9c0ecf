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
# overwritten, so running it again changes nothing; delete a file to make it anew (the nodes
# set the database passwords from these files at every start).
#
# For docker-compose.ha.yml's TLS it also makes throw-away certificates with openssl (EC
# P-256, valid 825 days): a certificate authority of its own (tls-ca.crt, and tls-ca.key,
# which no container is given) and, signed by it, one key and certificate per container and
# use, each for its own names alone:
#   tls-pg1.crt/.key ... tls-pg3   PostgreSQL and Patroni's REST API on pgN (and pgN-db):
#                                  servers only
#   tls-etcd1.crt/.key ... etcd3   etcd's client port on etcdN: server only
#   tls-etcd1-peer.crt/.key ...    etcd's peer traffic, server and client (a peer is both),
#                                  common name "etcd-peer": the members admit that name alone
#                                  as a peer (ETCD_PEER_CERT_ALLOWED_CN)
#   tls-lb.pem                     HAProxy's HTTPS: certificate and key in one file, for
#                                  localhost, 127.0.0.1, ::1, "lb", and the names in
#                                  LB_TLS_NAMES (comma-separated): server only
# Certificates of earlier versions of this script (tls-db, tls-etcd: one key for three
# containers, server and client) are no longer used and may be deleted.
# For anything beyond this machine put certificates of your own CA, or a public one for
# tls-lb.pem, under the same names (docs/deployment.md, "TLS").
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

# TLS: the authority first, then each certificate it signs, made when missing.
tls_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 \
		-subj "/CN=user-profiles throw-away CA $(date -u +%Y%m%d%H%M%S)" \
		-addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' \
		-keyout "$dir/tls-ca.key.tmp" -out "$dir/tls-ca.crt.tmp" 2>/dev/null
	mv "$dir/tls-ca.key.tmp" "$dir/tls-ca.key"
	mv "$dir/tls-ca.crt.tmp" "$dir/tls-ca.crt"
	made+=(tls-ca)
}
# tls_leaf NAME COMMON_NAME SUBJECT_ALT_NAMES EXTENDED_KEY_USAGE: NAME.key and NAME.crt.
tls_leaf() {
	local name=$1 common_name=$2 names=$3 usage=$4
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$common_name" \
		-keyout "$dir/$name.key.tmp" -out "$dir/$name.csr" 2>/dev/null
	openssl x509 -req -in "$dir/$name.csr" -CA "$dir/tls-ca.crt" -CAkey "$dir/tls-ca.key" -days 825 \
		-set_serial "0x$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
		-extfile <(printf 'subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n' "$names" "$usage") \
		-out "$dir/$name.crt.tmp" 2>/dev/null
	rm -f "$dir/$name.csr"
	# Readable, as the passwords are: the containers' processes run as other users (the
	# directory itself is the owner's alone). The authority's key stays 600.
	chmod 644 "$dir/$name.key.tmp"
	mv "$dir/$name.key.tmp" "$dir/$name.key"
	mv "$dir/$name.crt.tmp" "$dir/$name.crt"
	made+=("$name")
}
# tls_pem NAME ...: as tls_leaf, certificate and key in one file, NAME.pem (HAProxy's form).
tls_pem() {
	local name=$1
	tls_leaf "$@"
	cat "$dir/$name.crt" "$dir/$name.key" > "$dir/$name.pem.tmp"
	rm -f "$dir/$name.crt" "$dir/$name.key"
	mv "$dir/$name.pem.tmp" "$dir/$name.pem"
	made=("${made[@]/%$name/$name.pem}")
}
command -v openssl >/dev/null || { echo "secrets.sh: openssl is needed for the TLS certificates (apt-get install openssl)" >&2; exit 1; }
[ -s "$dir/tls-ca.crt" ] && [ -s "$dir/tls-ca.key" ] || tls_ca
for n in 1 2 3; do
	[ -s "$dir/tls-pg$n.crt" ] || tls_leaf "tls-pg$n" "pg$n" "DNS:pg$n,DNS:pg$n-db,DNS:localhost,IP:127.0.0.1" serverAuth
	[ -s "$dir/tls-etcd$n.crt" ] || tls_leaf "tls-etcd$n" "etcd$n" "DNS:etcd$n,DNS:localhost,IP:127.0.0.1" serverAuth
	[ -s "$dir/tls-etcd$n-peer.crt" ] || tls_leaf "tls-etcd$n-peer" etcd-peer "DNS:etcd$n" serverAuth,clientAuth
done
if [ ! -s "$dir/tls-lb.pem" ]; then
	lb_names='DNS:localhost,DNS:lb,IP:127.0.0.1,IP:::1'
	IFS=, read -r -a extra <<< "${LB_TLS_NAMES:-}"
	for name in "${extra[@]}"; do
		[ -n "$name" ] && lb_names+=",DNS:$name"
	done
	tls_pem tls-lb lb "$lb_names" serverAuth
fi
# HAProxy's hop to the instances (docker/ha/relay.cfg): the relay's server certificate, and the
# client certificate HAProxy alone presents to it.
[ -s "$dir/tls-relay.pem" ] || tls_pem tls-relay relay DNS:relay serverAuth
[ -s "$dir/tls-lb-client.pem" ] || tls_pem tls-lb-client lb-client DNS:lb-client clientAuth

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
