#!/usr/bin/env bash
# docker-compose.ha.yml's one-shot "etcd-auth": turns on etcd's authentication before any node
# starts. Users: "root" (etcd requires it to enable auth; its password stays in the secrets
# directory, for an operator) and "patroni", which may read and write the cluster's own prefix
# (/service/) and nothing else. Nothing that is not a member of the db network reaches etcd at
# all; with this, a container that does reach it still cannot read or write without a password.
# Idempotent: once auth is on, it only checks that root's password still works.
#   ETCDCTL_ENDPOINTS        the members
#   ROOT_PASSWORD_FILE       root's password
#   PATRONI_PASSWORD_FILE    patroni's password
set -Eeuo pipefail
root_password=$(cat "${ROOT_PASSWORD_FILE:?}")
patroni_password=$(cat "${PATRONI_PASSWORD_FILE:?}")
as_root=(etcdctl --user "root:$root_password")

# With auth on, only an authenticated client may ask; with it off, a user cannot authenticate.
if "${as_root[@]}" auth status 2>/dev/null | grep -q 'Authentication Status: true'; then
	"${as_root[@]}" user get patroni >/dev/null
	echo "etcd-auth: authentication is on; root and patroni exist"
	exit 0
fi
etcdctl user get root >/dev/null 2>&1 || etcdctl user add root --interactive=false --new-user-password="$root_password" >/dev/null
etcdctl user grant-role root root >/dev/null 2>&1 || true
etcdctl role get patroni >/dev/null 2>&1 || etcdctl role add patroni >/dev/null
etcdctl role grant-permission patroni --prefix=true readwrite /service/ >/dev/null
etcdctl user get patroni >/dev/null 2>&1 || etcdctl user add patroni --interactive=false --new-user-password="$patroni_password" >/dev/null
etcdctl user grant-role patroni patroni >/dev/null
etcdctl auth enable
echo "etcd-auth: authentication enabled; users root and patroni (readwrite on /service/)"
