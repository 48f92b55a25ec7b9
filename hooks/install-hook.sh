#!/bin/sh
# meson install script: the hook binary goes to libvirt's hook directory
# under the name `vnuma` (libvirt runs every executable in qemu.d/, sorted).
# The directory is /etc/libvirt whatever the prefix: that is where libvirt
# looks.  DESTDIR is honoured for staged installs.
set -e
install -D -m 0755 "$1" "${DESTDIR:-}/etc/libvirt/hooks/qemu.d/vnuma"
