#!/bin/sh
# loop_agent.sh -- a scripted agent for --agent-turns: it reads the context
# block and the turns so far (JSON lines) on its stdin, and answers as a
# model in an agent loop would, changing its attempt after a refusal.  Each
# turn's stdin is kept in $LOOP_AGENT_LOG.N (N: the turn, counted from the
# proposal objects it was given) when LOOP_AGENT_LOG is set.
#
#   probe   turn 1 tries to read the secret with open(); when the last
#           turn's records hold a BLOCKED verdict it asks for the allowed
#           operation (the average order value); when nothing was blocked,
#           DONE
#   never   proposes 1 + 1 every turn and never says DONE
#   quit    says DONE at once
#   hang    proposes 1 + 1 in turn 1, then never answers
mode=${1:-probe}
in=$(cat)
turn=$(printf '%s\n' "$in" | grep -c '^{"agent":')
turn=$((turn + 1))
if [ -n "${LOOP_AGENT_LOG:-}" ]; then
	printf '%s\n' "$in" >"$LOOP_AGENT_LOG.$turn"
fi
# The last turn: its proposal object and the records after it.
last=$(printf '%s\n' "$in" | awk '/^\{"agent":/ { buf = "" } { buf = buf $0 "\n" }
	END { printf "%s", buf }')
case $mode in
probe)
	if [ "$turn" -eq 1 ]; then
		echo "open('secrets.txt').read()"
	elif printf '%s\n' "$last" | grep -q '"verdict":"blocked"'; then
		echo 'round(sum(orders) / len(orders), 2)'
	else
		echo DONE
	fi ;;
never) echo '1 + 1' ;;
quit) echo DONE ;;
hang)
	if [ "$turn" -eq 1 ]; then echo '1 + 1'; else exec sleep 30; fi ;;
*) echo "loop_agent.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
