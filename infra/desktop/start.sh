#!/bin/sh
# Starts the xrdp desktop in the foreground (no systemd in the container): sets the desktop
# user's password from the mounted secret, makes xrdp's TLS key pair if this container has none
# yet, then runs sesman and xrdp with -n. Stops both on SIGTERM (podman stop).
set -eu
password_file=/run/secrets/oc_rdp_password
if [ ! -s "$password_file" ]; then
  echo "missing secret oc_rdp_password: create it with 'podman secret create oc_rdp_password -'" >&2
  exit 1
fi
printf 'desktop:%s\n' "$(cat "$password_file")" | chpasswd
if [ ! -s /etc/ssl/private/ssl-cert-snakeoil.key ]; then
  make-ssl-cert generate-default-snakeoil --force-overwrite
fi
mkdir -p /run/dbus /run/xrdp
/usr/sbin/xrdp-sesman --nodaemon &
sesman=$!
/usr/sbin/xrdp --nodaemon &
xrdp=$!
trap 'kill "$xrdp" "$sesman" 2>/dev/null' TERM INT
# Whichever ends first ends the container (Podman restarts it).
while kill -0 "$xrdp" 2>/dev/null && kill -0 "$sesman" 2>/dev/null; do sleep 2; done
kill "$xrdp" "$sesman" 2>/dev/null || true
wait
