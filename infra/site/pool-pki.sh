#!/bin/sh
# The gateway pool's TLS certificates, made once as Podman secrets (run as the user whose Podman
# runs the site; a secret that exists is kept): a CA of the site's own (oc_pool_ca: the bridges
# check members against it, and our gateways check the bridges' certificates against it), one
# server certificate for every pool member's name — gateway-1 … gateway-N and guacd
# (oc_pool_server_cert, oc_pool_server_key) — and the bridges' client certificate
# (oc_pool_client_cert, oc_pool_client_key). The CA's key is used here and thrown away: a new
# member name means a new run after `podman secret rm` of all five.
#   sh infra/site/pool-pki.sh 2     # two gateways (compose.yaml); the OpenTofu module runs it too
set -eu
gateways=${1:?usage: pool-pki.sh GATEWAY_COUNT}
names="oc_pool_ca oc_pool_server_cert oc_pool_server_key oc_pool_client_cert oc_pool_client_key"
have=0
for name in $names; do podman secret exists "$name" && have=$((have + 1)); done
[ "$have" -eq 5 ] && exit 0
[ "$have" -eq 0 ] || { echo "pool-pki.sh: only some of $names exist; remove them (podman secret rm) to make a new set" >&2; exit 1; }
command -v openssl >/dev/null || { echo "pool-pki.sh: openssl is missing" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
sans="DNS:guacd"
i=1
while [ "$i" -le "$gateways" ]; do sans="$sans,DNS:gateway-$i"; i=$((i + 1)); done

key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 3650 -subj /CN=overlay-companion-pool-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
issue() { # name, extendedKeyUsage, subjectAltName
  key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$1"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$3" "$2" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" \
    -days 825 -extfile "$1.ext" 2>/dev/null
}
issue server serverAuth "$sans"
issue client clientAuth DNS:overlay-companion-bridge

podman secret create oc_pool_ca ca.pem >/dev/null
podman secret create oc_pool_server_cert server.pem >/dev/null
podman secret create oc_pool_server_key server.key >/dev/null
podman secret create oc_pool_client_cert client.pem >/dev/null
podman secret create oc_pool_client_key client.key >/dev/null
