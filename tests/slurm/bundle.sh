#!/bin/bash
# Packs this machine's Slurm and munge (Debian's slurm-wlm, as tools/deps.sh
# test installs them) into one directory that runs on another x86-64 Linux
# with a glibc at least as new, with nothing installed there: a GPU machine
# where apt cannot install, so that tests/slurm/cluster.sh (with
# SLURM_TEST_PREFIX=DIR) and the GPU tests' Slurm part run there for real.
#
#   tests/slurm/bundle.sh DIR
#
# DIR/bin, DIR/sbin: the daemons and the commands the tests use;
# DIR/lib: every library they and the plugins need, but glibc's own (the
# host's is used, as its loader must match); DIR/lib/slurm-wlm: the plugins
# and libslurmfull. Each file's RUNPATH is set (patchelf) to find these next
# to it, so that no LD_LIBRARY_PATH is needed: one would reach the jobs, and
# the judge would load Debian's libraries instead of the host's. Plugins are
# found through slurm.conf's PluginDir and slurmstepd through slurmd's -d,
# which cluster.sh sets.
set -eu
[ $# = 1 ] || { echo "usage: tests/slurm/bundle.sh DIR" >&2; exit 64; }
DIR=$1
PLUGINS=/usr/lib/x86_64-linux-gnu/slurm-wlm
command -v patchelf >/dev/null || { echo "tests/slurm/bundle.sh: needs patchelf (apt-get install patchelf)" >&2; exit 1; }
[ -d "$PLUGINS" ] || { echo "tests/slurm/bundle.sh: no $PLUGINS (tools/deps.sh test installs slurm-wlm)" >&2; exit 1; }
mkdir -p "$DIR/bin" "$DIR/sbin" "$DIR/lib"
for p in slurmctld slurmd slurmstepd munged mungekey; do cp -L "/usr/sbin/$p" "$DIR/sbin/"; done
for p in srun sbatch squeue scancel scontrol sinfo munge unmunge; do cp -L "/usr/bin/$p" "$DIR/bin/"; done
cp -rL "$PLUGINS" "$DIR/lib/slurm-wlm"

# the libraries that everything above loads, less glibc's (a plugin whose
# library is not installed here, and so not found, is one no test loads)
for f in "$DIR"/bin/* "$DIR"/sbin/* "$DIR"/lib/slurm-wlm/*.so; do ldd "$f" 2>/dev/null || true; done |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -v -e /slurm-wlm/ -e '/lib\(c\|m\|dl\|rt\|pthread\|resolv\|util\)\.so' -e '/ld-linux' |
    while read -r lib; do cp -L "$lib" "$DIR/lib/"; done
chmod u+w "$DIR"/bin/* "$DIR"/sbin/* "$DIR"/lib/*.so* "$DIR"/lib/slurm-wlm/*
for f in "$DIR"/bin/* "$DIR"/sbin/*; do patchelf --set-rpath '$ORIGIN/../lib/slurm-wlm:$ORIGIN/../lib' "$f"; done
for f in "$DIR"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$DIR"/lib/slurm-wlm/*.so; do patchelf --set-rpath '$ORIGIN:$ORIGIN/..' "$f"; done
echo "tests/slurm/bundle.sh: $(du -sh "$DIR" | cut -f1) in $DIR ($(ls "$DIR/lib" | wc -l) libraries)"
