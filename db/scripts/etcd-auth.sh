#!/usr/bin/env bash
# docker-compose.ha.yml's one-shot "etcd-auth": turns on etcd's authentication before any node
# starts. Users: "root" (etcd requires it to enable auth; its password stays in the secrets
# directory, for an operator) and "patroni", which may read and write the cluster's own prefix
# (/service/) and nothing else. Nothing that is not a member of the db network reaches etcd at
# all; with this, a container that does reach it still cannot read or write without a password.
# A third user, "healthcheck", has no role and a password that is not a secret: it can
# authenticate and do nothing else. The members' healthcheck runs `etcdctl endpoint health` as
# it, which counts "permission denied" as healthy (the images may have no shell to read a file).
# Idempotent: once auth is on, it only checks that root's password still works.
#   ETCDCTL_ENDPOINTS        the members
#   ROOT_PASSWORD_FILE       root's password
#   PATRONI_PASSWORD_FILE    patroni's password
set -Eeuo pipefail
root_password=$(cat "${ROOT_PASSWORD_FILE:?}")
patroni_password=$(cat "${PATRONI_PASSWORD_FILE:?}")
# Every password reaches etcdctl in its environment (ETCDCTL_USER) or on its standard input,
# never on its command line, which every user of the host can read in /proc while it runs.
as_root() { ETCDCTL_USER="root:$root_password" etcdctl "$@"; }
add_user() { printf '%s\n' "$2" | etcdctl user add "$1" --interactive=false >/dev/null; }

# The members start with this; wait until they answer. With auth on (a restart of the
# deployment), only an authenticated client may ask; with it off, nobody can authenticate.
auth_on=
for _ in $(seq 1 120); do
	if as_root auth status 2>/dev/null | grep -q 'Authentication Status: true'; then
		auth_on=1
		break
	fi
	etcdctl endpoint health >/dev/null 2>&1 && break
	sleep 1
done
if [ -n "$auth_on" ]; then
	as_root user get patroni >/dev/null
	as_root user get healthcheck >/dev/null
	echo "etcd-auth: authentication is on; root, patroni and healthcheck exist"
	exit 0
fi
etcdctl endpoint health
etcdctl user get root >/dev/null 2>&1 || add_user root "$root_password"
etcdctl user grant-role root root >/dev/null 2>&1 || true
etcdctl role get patroni >/dev/null 2>&1 || etcdctl role add patroni >/dev/null
etcdctl role grant-permission patroni --prefix=true readwrite /service/ >/dev/null
etcdctl user get patroni >/dev/null 2>&1 || add_user patroni "$patroni_password"
etcdctl user grant-role patroni patroni >/dev/null
etcdctl user get healthcheck >/dev/null 2>&1 || add_user healthcheck healthcheck
etcdctl auth enable
echo "etcd-auth: authentication enabled; users root, patroni (readwrite on /service/) and healthcheck (nothing)"
