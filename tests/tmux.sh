# Sourced by the tests of the app in tmux (tests/tui.sh, tests/tui_places.sh,
# tests/edges_tui.sh), once they have defined tm (tmux on their own server)
# and T (their directory): the window "t"'s screen, keys sent to it, and a
# wait for text on it.
screen() { tm capture-pane -t t -p; }
keys() { tm send-keys -t t "$@"; }
# wait_for TEXT [SECONDS]: polls the screen until it shows TEXT (fixed string)
wait_for() {
    tries=$(( ${2:-15} * 10 ))
    while [ $tries -gt 0 ]; do
        screen >"$T/screen"
        grep -qF -- "$1" "$T/screen" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "the screen never showed: $1"
    sed 's/^/|/' "$T/screen"
    return 1
}
