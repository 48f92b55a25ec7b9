#!/bin/sh
# meson install script: the commented sample configuration goes to
# /etc/vnuma/vnuma.conf whatever the prefix, because that is where vnumactl,
# the hook and vnumad look (VNUMA_DEFAULT_CONFIG).  An existing file is the
# administrator's: it is kept, and the sample lands next to it as
# vnuma.conf.sample.  DESTDIR is honoured for staged installs.
set -e
sample=$1
dir=${DESTDIR:-}/etc/vnuma
if [ -e "$dir/vnuma.conf" ]; then
    install -D -m 0644 "$sample" "$dir/vnuma.conf.sample"
    echo "kept $dir/vnuma.conf; the sample is $dir/vnuma.conf.sample"
else
    install -D -m 0644 "$sample" "$dir/vnuma.conf"
fi
