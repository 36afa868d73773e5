#!/bin/sh
# fake_agent.sh -- a stand-in for an LLM command-line client, for the
# --agent tests.  It reads the task and context block on stdin (and keeps
# a copy in $FAKE_AGENT_LOG when that is set), then answers as MODE says:
#
#   average     one input line: the essay's average order value
#   fenced      prose around a fenced block of three inputs (one spans lines)
#   write       one fenced write_file command
#   chatter     several lines of prose, no fence (an error)
#   silent      nothing at all (an error)
#   fail        a message on stderr and exit status 3
#   sleep       never answers (the timeout kills it)
#   flood       answers without end (the output cap kills it)
#   deaf        answers without reading its stdin
#   linger      answers, then leaves a child holding stdout open
#   task        echoes $SANDBOXREPL_TASK as a Python string
#   orphan      answers after leaving a grandchild in a session of its own
#               (setsid), its pid in $FAKE_AGENT_PIDFILE
#   hostile     a proposal whose string holds raw terminal escapes
#   hostile-fail  a stderr line that holds raw terminal escapes, status 1
mode=${1:-average}
if [ "$mode" != deaf ]; then
	if [ -n "${FAKE_AGENT_LOG:-}" ]; then cat >"$FAKE_AGENT_LOG"; else cat >/dev/null; fi
fi
case $mode in
average) echo 'round(sum(orders) / len(orders), 2)' ;;
fenced)
	echo 'Here is the code:'
	echo '```python'
	echo '# the total'
	echo 'sum(orders)'
	echo ''
	echo 'max(orders,'
	echo '    [1])'
	echo "read_file({'path': 'report.txt'})"
	echo '```'
	echo 'That should do it.' ;;
write)
	printf '```\n%s\n```\n' "write_file({'path': 'out.txt', 'text': 'ok'})" ;;
chatter) printf 'Sure!\nround(sum(orders) / len(orders), 2)\nHope that helps.\n' ;;
silent) ;;
fail) echo 'fake agent: no API key' >&2; exit 3 ;;
sleep) exec sleep 30 ;;
flood) while :; do echo 'sum(orders) + sum(orders) + sum(orders) + sum(orders)'; done ;;
deaf) echo '1 + 1' ;;
linger) echo '2 + 2'; sleep 30 & ;;
task) printf "'%s'\n" "$SANDBOXREPL_TASK" ;;
orphan)
	# double fork: the subshell exits, its child calls setsid(); answer
	# only once the grandchild has written its pid
	( setsid sh -c 'echo $$ >"$FAKE_AGENT_PIDFILE.tmp" &&
	    mv "$FAKE_AGENT_PIDFILE.tmp" "$FAKE_AGENT_PIDFILE"; exec sleep 30' \
	    </dev/null >/dev/null 2>&1 & )
	while [ ! -s "$FAKE_AGENT_PIDFILE" ]; do sleep 0.01; done
	echo '1 + 1' ;;
hostile) printf "'\033]52;c;SGVsbG8=\007\033[2J\rsandboxed code: forged'\n" ;;
hostile-fail) printf 'no key\033]52;c;SGVsbG8=\007\rsandboxrepl: forged\n' >&2; exit 1 ;;
*) echo "fake_agent.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
