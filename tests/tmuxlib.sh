# tmuxlib.sh -- the helpers a tmux-driven UI test shares (sourced by
# tests/ui/ui.test, tests/ui/play.test and tests/ui/ui_input.test): a private tmux
# server per start, the program in a fixed size, locale, INPUTRC and HOME,
# and waits that poll the screen until a deadline instead of sleeping.
# Sets bin, tmp, pass and fail; the sourcing test prints its tally and
# exits.
srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
bin=${SANDBOXREPL:-./sandboxrepl}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v tmux >/dev/null 2>&1 || { echo "tmux not found: skipped"; exit 77; }
[ -x "$bin" ] || { echo "no $bin"; exit 99; }

tmp=$(mktemp -d) || exit 99
# tmux's sockets live in the test's directory and go with it.
TMUX_TMPDIR=$tmp; export TMUX_TMPDIR
unset TMUX
# A fresh server per start: reusing a name races with its shutdown.
sock=sandboxrepl-tmux-$$-0 starts=0
pass=0 fail=0
T() { tmux -L "$sock" -f "$tmp/tmux.conf" "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

cat >"$tmp/tmux.conf" <<'CONF'
set -g status off
set -g default-terminal tmux-256color
set -sg escape-time 0
set -g remain-on-exit on
CONF
mkdir -p "$tmp/home"

# start W H [ENV=VALUE...] [-- ARGS]: a fresh session running the program
# in the source directory (or in $rundir when set).
start() {
	w=$1 h=$2; shift 2
	envs= args=
	while [ $# -gt 0 ]; do
		case $1 in --) shift; args="$*"; break ;; esac
		envs="$envs $1"; shift
	done
	T kill-server >/dev/null 2>&1
	starts=$((starts + 1))
	sock=sandboxrepl-tmux-$$-$starts
	T new-session -d -s t -x "$w" -y "$h" "cd '${rundir:-$srcdir}' && env \
	    LANG=C.UTF-8 LC_ALL=C.UTF-8 INPUTRC=/dev/null HOME='$tmp/home' \
	    XDG_STATE_HOME='$tmp/state' $envs '$bin' $args; \
	    echo [exit=\$?]; sleep 600"
}

screen() { T capture-pane -p -t t >"$tmp/screen" 2>/dev/null; }

# wait_for PATTERN [SECONDS]: poll the screen until grep -E matches.
wait_for() {
	end=$(( $(date +%s) + ${2:-10} ))
	while :; do
		screen
		grep -Eq -- "$1" "$tmp/screen" && return 0
		[ "$(date +%s)" -gt "$end" ] && return 1
		sleep 0.02
	done
}

# wait_gone PATTERN [SECONDS]
wait_gone() {
	end=$(( $(date +%s) + ${2:-10} ))
	while :; do
		screen
		grep -Eq -- "$1" "$tmp/screen" || return 0
		[ "$(date +%s)" -gt "$end" ] && return 1
		sleep 0.02
	done
}

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1)); echo "not ok - $1"
	echo "--- screen:"; cat "$tmp/screen"; echo "---"
}
expect() {	# name pattern [seconds]
	if wait_for "$2" "$3"; then ok "$1"; else not_ok "$1"; fi
}
expect_gone() {
	if wait_gone "$2" "$3"; then ok "$1"; else not_ok "$1"; fi
}
# refute NAME PATTERN: the current screen does not match.
refute() {
	screen
	if grep -Eq -- "$2" "$tmp/screen"; then not_ok "$1"; else ok "$1"; fi
}
type_line() { T send-keys -t t -l "$1"; T send-keys -t t Enter; }
# count PATTERN: matches on the current screen
count() { screen; grep -Eo -- "$1" "$tmp/screen" | wc -l; }

# expect_count NAME PATTERN N: poll until there are exactly N matches.
expect_count() {
	end=$(( $(date +%s) + 10 ))
	while [ "$(count "$2")" -ne "$3" ]; do
		if [ "$(date +%s)" -gt "$end" ]; then not_ok "$1"; return; fi
		sleep 0.02
	done
	ok "$1"
}
