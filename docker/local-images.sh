#!/usr/bin/env bash
# Builds, from Debian's packages alone, local stand-ins for the images docker-compose.yml and
# the Dockerfile name, for machines that can reach Debian's mirror but no container registry
# (each from docker/stand-ins/<name>/Dockerfile):
#
#   local/debian:sid    a minimal Debian unstable root file system (debootstrap), imported
#   local/postgres:18   Debian's postgresql-18 (the official image's binaries, same paths)
#   local/jdk:21        Debian's openjdk-21-jdk-headless (stands in for eclipse-temurin JDK)
#   local/jre:21        Debian's openjdk-21-jre-headless (stands in for eclipse-temurin JRE)
#   local/socat:1       Debian's socat (stands in for alpine/socat, Testcontainers' ambassador)
#   local/prometheus:3  Debian's prometheus (stands in for prom/prometheus, monitoring profile)
#   local/etcd:3.5      Debian's etcd-server and etcd-client (stands in for etcd's image; HA deployment)
#   local/haproxy:3     Debian's haproxy (stands in for haproxy:3.2; HA deployment)
#
# The HA deployment's Patroni nodes are built by compose itself (docker/patroni/Dockerfile) on
# local/postgres:18 (PATRONI_BASE_IMAGE in docker/local-images.env).
#
# It builds them on the Docker engine that answers and starts none: whoever starts an engine
# stops it (.ci/run does both for its own run). If `docker compose` is missing, it takes the v2
# plugin from the unstable suite's docker-compose package (Debian stable's is the old v1) into
# ~/.docker/cli-plugins. The packages come from the Debian mirror this machine's apt already
# uses (/etc/apt/sources.list and sources.list.d), or from DEBIAN_MIRROR if set.
#
# An image that exists and was built from the same Dockerfile (a label records its hash) is
# kept; REBUILD=1 rebuilds them all. Each step says how long it took; build output goes to
# target/local-images-*.log. Grafana is not packaged by Debian: the monitoring profile's Grafana
# has no stand-in, and runs only where its official image can be pulled.
#
# Then: docker compose --env-file .env --env-file docker/local-images.env up --build
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE=sid
REBUILD=${REBUILD:-}
STARTED=$SECONDS

step() {
  local name=$1
  shift
  local began=$SECONDS
  echo "== $name"
  "$@"
  echo "   $name: $((SECONDS - began)) s"
}

apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { apt-get update -q >/dev/null; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

engine() {
  if ! docker info >/dev/null 2>&1; then
    echo "No Docker engine answers. Start one, and stop it when done; as root, for example:" >&2
    echo "  apt-get install docker.io iptables; dockerd --storage-driver=overlay2 > dockerd.log 2>&1 &" >&2
    echo "(--storage-driver=vfs where the kernel has no overlayfs)" >&2
    exit 2
  fi
  echo "   an engine answers: $(docker version --format '{{.Server.Version}}')"
}

# The Debian archive this machine's apt reads: the first deb source with component main for the
# machine's own release (or unstable), in one-line (.list) or deb822 (.sources) form.
# debootstrap takes the other suite from the same archive.
apt_mirror() {
  local suites
  suites="^($(. /etc/os-release && echo "${VERSION_CODENAME:-none}")|sid|unstable)\$"
  {
    # deb [options] URI suite component...
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed -E 's/\[[^]]*\]//' \
      | awk -v suites="$suites" '$1 == "deb" && $3 ~ suites && (" " $0 " ") ~ / main / { print $2 }'
    # Paragraphs of Types:, URIs:, Suites:, Components:, Enabled: fields.
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suites="$suites" '
      function flush(  n, i, each) {
        n = split(field["suites:"], each, " ")
        for (i = 1; i <= n; i++) {
          if (each[i] ~ suites && field["types:"] ~ /(^| )deb( |$)/ && field["components:"] ~ /(^| )main( |$)/ \
              && tolower(field["enabled:"]) != "no") {
            split(field["uris:"], each, " "); print each[1]; break
          }
        }
        split("", field)
      }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      { key = tolower($1); $1 = ""; sub(/^ +/, ""); field[key] = $0 }
      END { flush() }'
  } | grep -E '^https?://' | head -1 || true
}

LABEL=dev.highload.dockerfile-sha256

# Whether an image must be built: absent, built from another Dockerfile, or REBUILD set.
stale() {
  local tag=$1 sha=${2:-}
  [ -n "$REBUILD" ] && return 0
  docker image inspect "$tag" >/dev/null 2>&1 || return 0
  [ -z "$sha" ] && return 1
  [ "$(docker image inspect -f "{{index .Config.Labels \"$LABEL\"}}" "$tag")" != "$sha" ]
}

# What the base image is made of; a base imported another way is rebuilt.
BASE_RECIPE="debootstrap-minbase-$SUITE-root-755-with-path"

base() {
  stale local/debian:$SUITE "$BASE_RECIPE" || { echo "   kept local/debian:$SUITE"; return; }
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local root
  root=$(mktemp -d /tmp/local-images-rootfs.XXXXXX)
  # mktemp makes it 0700, and tar carries that to the image's /: no other user could reach /usr.
  chmod 755 "$root"
  debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" > target/local-images-debootstrap.log 2>&1 \
    || { tail -20 target/local-images-debootstrap.log >&2; rm -rf "$root"; exit 1; }
  # An imported file system has no environment: give it the PATH every Debian image has, or
  # `ENV PATH=...:$PATH` in the images on top expands to almost nothing.
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "LABEL $LABEL=$BASE_RECIPE" - local/debian:$SUITE >/dev/null
  rm -rf "$root"
}

# Builds docker/stand-ins/NAME/Dockerfile. The build context also holds extra-ca/: the certificates
# this host added to its trust (/usr/local/share/ca-certificates), so that an image that
# downloads over HTTPS trusts what the host trusts, a TLS-inspecting proxy's CA included.
image() {
  local tag=$1 dir=$2 sha log context
  context=$(mktemp -d /tmp/local-images-context.XXXXXX)
  cp "$dir/Dockerfile" "$context/"
  mkdir "$context/extra-ca"
  find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' -exec cp '{}' "$context/extra-ca/" ';' 2>/dev/null || true
  # The Dockerfile, the added certificates and the base image it is built on.
  sha=$({ cat "$context/Dockerfile" "$context"/extra-ca/* 2>/dev/null; docker image inspect -f '{{.Id}}' local/debian:$SUITE; } \
    | sha256sum | cut -d' ' -f1)
  if ! stale "$tag" "$sha"; then
    echo "   kept $tag"
    rm -rf "$context"
    return
  fi
  log=target/local-images-${tag//[:\/]/-}.log
  docker build --build-arg BASE_IMAGE=local/debian:$SUITE --label "$LABEL=$sha" -t "$tag" "$context" > "$log" 2>&1 \
    || { tail -30 "$log" >&2; rm -rf "$context"; exit 1; }
  rm -rf "$context"
}

compose_v2() {
  if docker compose version >/dev/null 2>&1; then
    echo "   $(docker compose version)"
    return
  fi
  local out
  out=$(mktemp -d /tmp/local-images-compose.XXXXXX)
  # The package is Debian unstable's; the plugin in it needs nothing but libc.
  docker run --rm -v "$out:/out" local/debian:$SUITE bash -c 'cd /out \
    && apt-get -o Acquire::Check-Valid-Until=false update -q >/dev/null \
    && apt-get download -q docker-compose 2>/dev/null >/dev/null'
  dpkg-deb -x "$out"/docker-compose_*.deb "$out/x"
  mkdir -p ~/.docker/cli-plugins
  cp "$out/x/usr/libexec/docker/cli-plugins/docker-compose" ~/.docker/cli-plugins/docker-compose
  rm -rf "$out"
  echo "   $(docker compose version)"
}

MIRROR=${DEBIAN_MIRROR:-$(apt_mirror)}
if [ -z "$MIRROR" ]; then
  echo "No Debian mirror in this machine's apt sources; name one with DEBIAN_MIRROR=http://..." >&2
  exit 2
fi

mkdir -p target
step "Docker engine" engine
step "base image local/debian:$SUITE (debootstrap from $MIRROR)" base
step "local/postgres:18" image local/postgres:18 docker/stand-ins/postgres
step "local/jdk:21" image local/jdk:21 docker/stand-ins/jdk
step "local/jre:21" image local/jre:21 docker/stand-ins/jre
step "local/socat:1" image local/socat:1 docker/stand-ins/socat
step "local/prometheus:3" image local/prometheus:3 docker/stand-ins/prometheus
step "local/etcd:3.5" image local/etcd:3.5 docker/stand-ins/etcd
step "local/haproxy:3" image local/haproxy:3 docker/stand-ins/haproxy
step "Compose v2" compose_v2
echo "== done in $((SECONDS - STARTED)) s; the images:"
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep '^local/' | sed 's/^/   /'
