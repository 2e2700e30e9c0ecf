#!/usr/bin/env bash
# Entrypoint of docker-compose.ha.yml's nodes: renders /etc/patroni/patroni.yml (a template) with
# this node's secrets and the deployment's subnets into a file only postgres can read, then runs
# Patroni on it. The template names ${VARIABLE}s; a missing one stops the start. Secrets arrive as
# files (Compose secrets), never as environment variables a `docker inspect` would show:
#   SUPERUSER_PASSWORD_FILE    postgres
#   REPLICATION_PASSWORD_FILE  replicator (streaming) and rewinder (pg_rewind)
#   RESTAPI_PASSWORD_FILE      user "patroni" of the REST API's unsafe methods (and patronictl)
#   ETCD_PASSWORD_FILE         etcd user "patroni" (db/scripts/etcd-auth.sh makes it)
# and as plain variables: HA_DB_SUBNET, HA_APP_SUBNET, HA_ADMIN_SUBNET, APP_DB_DATABASE,
# APP_DB_USERNAME, APP_DB_MIGRATION_USERNAME, RESTAPI_ADDRESS (this node's REST API on the db
# network). The node's TLS certificate and key (TLS_CERT_FILE, TLS_KEY_FILE, Compose secrets)
# are copied where PostgreSQL accepts a key: owned by postgres, mode 600.
# patronictl reads the same rendered file: patronictl -c /var/lib/postgresql/patroni.yml list
set -Eeuo pipefail
template=${PATRONI_TEMPLATE:-/etc/patroni/patroni.yml}
rendered=${PATRONI_CONFIG:-/var/lib/postgresql/patroni.yml}

read_secret() {
	local variable=$1 file_variable="$1_FILE"
	local file=${!file_variable:?$file_variable must name a file under /run/secrets}
	[ -r "$file" ] || { echo "patroni.sh: $file_variable=$file is not readable" >&2; exit 1; }
	printf -v "$variable" '%s' "$(cat "$file")"
	export "${variable?}"
}
read_secret SUPERUSER_PASSWORD
read_secret REPLICATION_PASSWORD
read_secret RESTAPI_PASSWORD
read_secret ETCD_PASSWORD

umask 077
tls=/var/lib/postgresql/tls
mkdir -p "$tls"
install_tls() {
	local file_variable=$1 target=$2
	local file=${!file_variable:?$file_variable must name a file under /run/secrets}
	[ -r "$file" ] || { echo "patroni.sh: $file_variable=$file is not readable" >&2; exit 1; }
	cp "$file" "$tls/$target.tmp"
	mv "$tls/$target.tmp" "$tls/$target"
}
install_tls TLS_CERT_FILE db.crt
install_tls TLS_KEY_FILE db.key
python3 - "$template" "$rendered.tmp" <<'PY'
import json, os, re, sys
text = open(sys.argv[1]).read()
missing = sorted({m for m in re.findall(r'\$\{([A-Z0-9_]+)\}', text) if not os.environ.get(m)})
if missing:
    sys.exit("patroni.sh: the template needs " + ", ".join(missing))
def value(match):
    name = match.group(1)
    if name.endswith("PASSWORD"):
        # A JSON string is a quoted YAML scalar: no password can break the file.
        return json.dumps(os.environ[name])
    if not re.fullmatch(r'[A-Za-z0-9_.:/-]+', os.environ[name]):
        sys.exit("patroni.sh: %s=%r is not a name, an address or a subnet" % (name, os.environ[name]))
    return os.environ[name]
open(sys.argv[2], 'w').write(re.sub(r'\$\{([A-Z0-9_]+)\}', value, text))
PY
mv "$rendered.tmp" "$rendered"
unset SUPERUSER_PASSWORD REPLICATION_PASSWORD RESTAPI_PASSWORD ETCD_PASSWORD
exec patroni "$rendered"
