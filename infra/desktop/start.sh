#!/bin/sh
# Sets the desktop user's password from the mounted secret, then runs xrdp in the foreground
# (no systemd in the container: sesman and xrdp both with -n).
set -eu
password_file=/run/secrets/oc_rdp_password
if [ ! -s "$password_file" ]; then
  echo "missing secret oc_rdp_password: create it with 'podman secret create oc_rdp_password -'" >&2
  exit 1
fi
printf 'desktop:%s\n' "$(cat "$password_file")" | chpasswd
/usr/sbin/xrdp-sesman -n &
exec /usr/sbin/xrdp -n
