# step NAME COMMAND...: runs one step of `npm test` and ends it with a line that says how it went:
# "== NAME: passed (N s)", or "== NAME: FAILED (exit N)" and then the whole run stops with that code.
# background NAME COMMAND...: starts COMMAND now, beside the steps, its output in a log file (the steps that
# need what it does wait for it themselves); it is stopped if the run ends first.
# steps_table: one line per step and background command with its result, wall time and CPU time (user +
# system of its processes; above the wall time when they used both cores). test-all.sh prints it at exit.
STEPS_DIR=
STEPS_STARTED=$SECONDS
STEPS_ROWS=()
STEPS_BACKGROUND=()

# CPU seconds (user + system) of this shell's finished children, from `times` written to file $1.
steps_cpu() {
	local line s=0
	line=$(tail -n 1 "$1" 2>/dev/null) || true
	# "1m2.345s 0m0.678s": user, then system.
	while [[ $line =~ ^\ *([0-9]+)m([0-9]+)\.[0-9]+s(.*)$ ]]; do
		s=$((s + BASH_REMATCH[1] * 60 + BASH_REMATCH[2]))
		line=${BASH_REMATCH[3]}
	done
	echo "$s"
}

step() {
	local name=$1
	shift
	echo "== $name"
	: "${STEPS_DIR:=$(mktemp -d "${TMPDIR:-/tmp}/npm-test-steps.XXXXXX")}"
	local started=$SECONDS code=0 times="$STEPS_DIR/times-${#STEPS_ROWS[@]}"
	# In a subshell of its own, whose `times` counts this step's processes only.
	if ("$@"; code=$?; times > "$times"; exit "$code"); then
		echo "== $name: passed ($((SECONDS - started)) s)"
	else
		code=$?
	fi
	local result=passed
	[ "$code" -eq 0 ] || result=FAILED
	STEPS_ROWS+=("$name|$result|$((SECONDS - started))|$(steps_cpu "$times")")
	if [ "$code" -ne 0 ]; then
		echo "== $name: FAILED (exit $code)"
		exit "$code"
	fi
}

background() {
	local name=$1
	shift
	: "${STEPS_DIR:=$(mktemp -d "${TMPDIR:-/tmp}/npm-test-steps.XXXXXX")}"
	local i=${#STEPS_BACKGROUND[@]}
	local log="$STEPS_DIR/background-$i.log"
	echo "# $name: started in the background (log: $log)"
	# Job control on for the start only: the command gets a process group of its own, to stop it as one.
	set -m
	(
		set +e
		started=$SECONDS
		"$@" > "$log" 2>&1
		code=$?
		times > "$STEPS_DIR/background-$i.times"
		echo "$code $((SECONDS - started))" > "$STEPS_DIR/background-$i.status"
	) &
	STEPS_BACKGROUND+=("$!|$name|$log")
	set +m
}

steps_table() {
	local row pid name log i=0 keep=
	for row in "${STEPS_BACKGROUND[@]}"; do
		IFS='|' read -r pid name log <<< "$row"
		local status="$STEPS_DIR/background-$i.status" code wall
		if [ ! -f "$status" ]; then
			kill -TERM -- "-$pid" 2> /dev/null || true
			wait "$pid" 2> /dev/null || true
			STEPS_ROWS+=("$name (background; unfinished at the end of the run)|stopped|-|-")
		else
			read -r code wall < "$status"
			if [ "$code" -eq 0 ]; then
				STEPS_ROWS+=("$name (background)|passed|$wall|$(steps_cpu "$STEPS_DIR/background-$i.times")")
			else
				STEPS_ROWS+=("$name (background; exit $code, log: $log)|FAILED|$wall|$(steps_cpu "$STEPS_DIR/background-$i.times")")
				keep=1
			fi
		fi
		i=$((i + 1))
	done
	echo "Each step's wall time and CPU time in seconds (CPU: user + system time of its processes):"
	printf '%6s %6s  %-7s %s\n' wall CPU result step
	for row in "${STEPS_ROWS[@]}"; do
		local result cpu
		IFS='|' read -r name result wall cpu <<< "$row"
		printf '%6s %6s  %-7s %s\n' "$wall" "$cpu" "$result" "$name"
	done
	printf '%6s %6s  %-7s %s\n' "$((SECONDS - STEPS_STARTED))" '' '' 'the whole run'
	[ -n "$keep" ] || [ -z "$STEPS_DIR" ] || rm -rf "$STEPS_DIR"
}
