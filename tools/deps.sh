#!/bin/sh
# What building and testing gpucourse needs, in one place: the Makefile runs
# this before it compiles (make, make run, make test) and .ci/run before
# everything else.
#
#   tools/deps.sh build   what compiling gpucourse needs
#   tools/deps.sh test    that, and what make test needs besides (also nvcc)
#   tools/deps.sh ci      that, and clang's libFuzzer for make fuzz
#
# Each package is looked for the cheap way (a header through the compiler, a
# pkg-config module, a command), so that nothing else runs when everything is
# there. What is missing is installed with apt-get (Debian, Ubuntu) when we
# are root or sudo needs no password; otherwise (or with GPUCOURSE_NO_INSTALL
# set) the apt-get line is printed and we stop. Never asks for a password:
# make must not hang.

CC=${CC:-cc}

has_command() { command -v "$1" >/dev/null 2>&1; }
# daemons live in /usr/sbin, which a non-root PATH may lack
has_sbin() { has_command "$1" || [ -x "/usr/sbin/$1" ]; }
# The compiler's own include path, so that what it finds is what make builds
# with ($CC unquoted: it may be "ccache cc").
has_header() { printf '%s\n' "$@" | $CC -E -x c - >/dev/null 2>&1; }

# present PACKAGE: the package, or what make needs of it, is here
present() {
    case $1 in
    build-essential) has_command "${CC%% *}" && has_command make ;;
    pkg-config) has_command pkg-config ;;
    libyaml-dev) has_header '#include <yaml.h>' ;;
    nettle-dev) has_header '#include <nettle/sha2.h>' ;;
    libncurses-dev) pkg-config --exists ncursesw 2>/dev/null ;;
    libcmark-gfm-dev) has_header '#include <cmark-gfm.h>' ;;
    libcmark-gfm-extensions-dev) has_header '#include <cmark-gfm-core-extensions.h>' ;;
    libcmocka-dev) has_header '#include <stdarg.h>' '#include <stddef.h>' '#include <stdint.h>' \
                              '#include <setjmp.h>' '#include <cmocka.h>' ;;
    tmux | python3 | patch) has_command "$1" ;;
    procps) has_command pgrep && has_command ps ;;
    # tests/slurm starts its own munged, slurmctld and slurmd (sbin: not on
    # every PATH) and drives them with srun. Installing them starts no
    # Slurm service (their units want /etc/slurm/slurm.conf; in a container
    # invoke-rc.d finds no runlevel or policy-rc.d says no); a system munged
    # that systemd may start is not used.
    slurm-wlm) has_sbin slurmctld && has_sbin slurmd && has_command srun && has_command sinfo ;;
    munge) has_sbin munged ;;
    clang) has_command clang ;;
    libclang-rt-dev) has_command clang && [ -f "$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a")" ] ;;
    *) echo "tools/deps.sh: no check for '$1'" >&2; return 1 ;;
    esac
}

BUILD="build-essential pkg-config libyaml-dev nettle-dev libncurses-dev libcmark-gfm-dev libcmark-gfm-extensions-dev"
TEST="libcmocka-dev tmux python3 procps patch slurm-wlm munge"
FUZZ="clang libclang-rt-dev"
case $1 in
build) want=$BUILD ;;
test) want="$BUILD $TEST" ;;
ci) want="$BUILD $TEST $FUZZ" ;;
*) echo "usage: tools/deps.sh build|test|ci" >&2; exit 64 ;;
esac

missing_now() {
    missing=
    for p in $want; do present "$p" || missing="$missing $p"; done
    missing=${missing# }
}

# nvcc, where gpucourse looks for it (grader/toolchain.c). The CUDA Toolkit
# is NVIDIA's install, not one of these packages: only say so.
nvcc_found() {
    [ -n "$GPUCOURSE_NVCC" ] && [ -x "$GPUCOURSE_NVCC" ] && return 0
    has_command nvcc || { [ -n "$CUDA_HOME" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; } || [ -x /usr/local/cuda/bin/nvcc ]
}

missing_now
if [ -n "$missing" ]; then
    line="apt-get install -y --no-install-recommends $missing"
    if ! has_command apt-get; then
        echo "gpucourse needs these packages (Debian names; install them with your system's package manager):" >&2
        echo "  $missing" >&2
        exit 1
    fi
    if [ -n "$GPUCOURSE_NO_INSTALL" ]; then  # only say what is missing (a machine someone else keeps)
        sudo=none
    elif [ "$(id -u)" = 0 ]; then
        sudo=
    elif has_command sudo && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        sudo=none
    fi
    if [ "$sudo" = none ]; then
        echo "gpucourse needs these packages: $missing" >&2
        echo "Install them, then run make again:" >&2
        echo "  sudo $line" >&2
        exit 1
    fi
    echo "tools/deps.sh: installing what gpucourse needs: $missing${sudo:+ (with sudo)}" >&2
    # a fresh machine may have no package lists yet
    $sudo apt-get update -qq >&2 &&
        $sudo env DEBIAN_FRONTEND=noninteractive $line -qq >&2 || {
        echo "gpucourse: apt-get could not install: $missing" >&2
        echo "Install them, then run make again:" >&2
        echo "  sudo $line" >&2
        exit 1
    }
    missing_now
    if [ -n "$missing" ]; then
        echo "gpucourse: still missing after apt-get: $missing" >&2
        exit 1
    fi
fi

if [ "$1" != build ] && ! nvcc_found; then
    echo "gpucourse: nvcc not found; the tests compile CUDA code" >&2
    echo "Install the CUDA Toolkit (README.md says which) and put its bin/ on PATH, e.g." >&2
    echo "  export PATH=/usr/local/cuda/bin:\$PATH" >&2
    exit 1
fi
exit 0
