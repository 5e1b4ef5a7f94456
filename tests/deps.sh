#!/bin/sh
# tools/deps.sh, the one list of packages that make and CI install: silent
# when everything is there, never asks for a password, and either installs
# what is missing (root, or sudo without a password) or prints the apt-get
# line and stops make before it compiles. apt-get, sudo and id are stand-ins
# here, and a compiler that finds no cmark-gfm header makes the two cmark-gfm
# packages "missing".
# Prints TAP.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/gpucourse-deps-XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
n=0
check() { # check "name" command...: passes when the command succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | head -30; fi
}

# F: apt-get and sudo that log their arguments; U: also an id that says we
# are not root; P: also a sudo that takes no password; R: also an id for root
mkdir -p "$T/F" "$T/U" "$T/P" "$T/R"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/log"\n' "$T" >"$T/F/apt-get"
printf '#!/bin/sh\necho "sudo $*" >>"%s/log"\nexit 1\n' "$T" >"$T/F/sudo"
printf '#!/bin/sh\necho 1000\n' >"$T/U/id"
cp "$T/U/id" "$T/P/id"
printf '#!/bin/sh\necho "sudo $*" >>"%s/log"\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n' "$T" >"$T/P/sudo"
printf '#!/bin/sh\necho 0\n' >"$T/R/id"
printf '#!/bin/sh\nsrc=$(cat)\ncase $src in *cmark-gfm*) exit 1 ;; esac\nprintf "%%s\\n" "$src" | cc "$@"\n' >"$T/nocmark"
chmod +x "$T"/F/* "$T"/U/* "$T"/P/* "$T"/R/* "$T/nocmark"

# deps GROUP DIRS...: tools/deps.sh GROUP with the stand-ins of DIRS first on
# PATH and the compiler that finds no cmark-gfm header; output in $T/got, log in $T/log
deps() {
    group=$1; shift
    path=$PATH
    for d in "$@"; do path=$T/$d:$path; done
    rm -f "$T/log"
    PATH=$path CC=$T/nocmark tools/deps.sh "$group" >"$T/got" 2>&1
}

t_silent() { rm -f "$T/log"; PATH=$T/F:$PATH tools/deps.sh test >"$T/got" 2>&1 || { cat "$T/got"; return 1; }
             [ ! -s "$T/got" ] && [ ! -e "$T/log" ] || { echo "output or apt-get/sudo run:"; cat "$T/got" "$T/log"; return 1; }; }
check "everything there: silent, exit 0, no apt-get and no sudo" t_silent

t_request() { deps build F U; rc=$?
              [ $rc = 1 ] && grep -qx "  sudo apt-get install -y --no-install-recommends libcmark-gfm-dev libcmark-gfm-extensions-dev" "$T/got" &&
                  ! grep -q "^apt-get" "$T/log" && ! grep -v "^sudo -n " "$T/log" ||
                  { echo "exit $rc"; cat "$T/got" "$T/log"; return 1; }; }
check "a package missing, sudo wants a password: the apt-get line, exit 1, sudo only with -n" t_request

t_sudo() { deps build F P; rc=$?
           [ $rc = 1 ] && grep -qx "apt-get update -qq" "$T/log" &&
               grep -qx "apt-get install -y --no-install-recommends libcmark-gfm-dev libcmark-gfm-extensions-dev -qq" "$T/log" &&
               ! grep -v "^sudo -n \|^apt-get " "$T/log" && grep -q "still missing after apt-get: libcmark-gfm-dev libcmark-gfm-extensions-dev" "$T/got" ||
               { echo "exit $rc"; cat "$T/got" "$T/log"; return 1; }; }
check "a package missing, sudo without a password: apt-get installs just that one" t_sudo

t_root() { deps build F R; rc=$?
           [ $rc = 1 ] && grep -qx "apt-get install -y --no-install-recommends libcmark-gfm-dev libcmark-gfm-extensions-dev -qq" "$T/log" &&
               ! grep -q "^sudo" "$T/log" || { echo "exit $rc"; cat "$T/got" "$T/log"; return 1; }; }
check "a package missing, as root: apt-get without sudo" t_root

t_no_install() { rm -f "$T/log"; PATH=$T/R:$T/F:$PATH GPUCOURSE_NO_INSTALL=1 CC=$T/nocmark tools/deps.sh build >"$T/got" 2>&1; rc=$?
                 [ $rc = 1 ] && grep -q "sudo apt-get install -y --no-install-recommends libcmark-gfm-dev libcmark-gfm-extensions-dev" "$T/got" &&
                     [ ! -e "$T/log" ] || { echo "exit $rc"; cat "$T/got" "$T/log" 2>/dev/null; return 1; }; }
check "GPUCOURSE_NO_INSTALL, even as root: the apt-get line only, exit 1" t_no_install

t_make() { rm -f "$T/log"
           PATH=$T/U:$T/F:$PATH make -s CC="$T/nocmark" B="$T/b" "$T/b/src/util.o" >"$T/got" 2>&1 && return 1
           grep -q "sudo apt-get install -y --no-install-recommends libcmark-gfm-dev libcmark-gfm-extensions-dev" "$T/got" && [ ! -e "$T/b/src/util.o" ] ||
               { cat "$T/got"; return 1; }; }
check "make stops before compiling, with the apt-get line" t_make

t_usage() { tools/deps.sh >"$T/got" 2>&1; [ $? = 64 ] && grep -q "usage: tools/deps.sh build|test|ci" "$T/got"; }
check "tools/deps.sh without a group: usage, exit 64" t_usage

# the README's two package lists are tools/deps.sh's (BUILD, and TEST's own)
t_readme() { for v in BUILD TEST; do
                 list=$(sed -n "s/^$v=\"\(.*\)\"$/\1/p" tools/deps.sh)
                 [ -n "$list" ] || { echo "no $v= line in tools/deps.sh"; return 1; }
                 tr '\n' ' ' <README.md | grep -qF "\`$list\`" || { echo "README.md does not list \`$list\`"; return 1; }
             done; }
check "the README lists the packages tools/deps.sh installs, build and test" t_readme

echo "1..$n"
