# step NAME COMMAND...: runs one step of `npm test` and ends it with a line that says how it went:
# "== NAME: passed (N s)", or "== NAME: FAILED (exit N)" and then the whole run stops with that code.
# together NAME COMMAND ...: steps side by side (see below).
# background NAME COMMAND...: starts COMMAND now, beside the steps, its output in a log file (the steps that
# need what it does wait for it themselves); it is stopped if the run ends first.
# steps_table: one line per step and background command with its result, wall time and CPU time (user +
# system of its processes; above the wall time when they used both cores). test-all.sh prints it at exit.
STEPS_DIR=
STEPS_STARTED=$SECONDS
STEPS_ROWS=()
STEPS_BACKGROUND=()
STEPS_TOGETHER=0
# The kernel's CPU accounting groups (cgroup v1), where this user may make them (root): each step's group counts
# every process the step starts, however deep. `times` counts only the processes its shell waited for, and so left
# out Chromium's renderers, most of the editor suite's CPU (docs/evidence/2026-12-04-cpu-by-process/).
STEPS_CPUACCT=${STEPS_CPUACCT:-/sys/fs/cgroup/cpuacct}
if mkdir "$STEPS_CPUACCT/npm-test-probe-$$" 2> /dev/null; then
	rmdir "$STEPS_CPUACCT/npm-test-probe-$$"
	STEPS_CPU_OF="all its processes"
else
	STEPS_CPU_OF="the processes its shell waited for"
fi

# Moves the calling (sub)shell into an accounting group of its own, whose folder it writes to file $1; does nothing
# where groups cannot be made.
steps_account() {
	local group="$STEPS_CPUACCT/npm-test-$BASHPID"
	if mkdir "$group" 2> /dev/null && echo "$BASHPID" > "$group/cgroup.procs" 2> /dev/null; then echo "$group" > "$1"; fi
}

# CPU seconds (user + system) of a step: from its accounting group (file $1.group names it), or else from `times`
# written to file $1 (this shell's finished children).
steps_cpu() {
	local line s=0 group=
	[ ! -f "$1.group" ] || group=$(cat "$1.group")
	if [ -n "$group" ] && [ -r "$group/cpuacct.usage" ]; then
		# Nanoseconds. (No `return` here: in the EXIT trap, a function's return inside $(...) ended the whole table.)
		line=$(cat "$group/cpuacct.usage")
		rmdir "$group" 2> /dev/null || true
		s=$((line / 1000000000))
	else
		line=$(tail -n 1 "$1" 2>/dev/null) || true
		# "1m2.345s 0m0.678s": user, then system.
		while [[ $line =~ ^\ *([0-9]+)m([0-9]+)\.[0-9]+s(.*)$ ]]; do
			s=$((s + BASH_REMATCH[1] * 60 + BASH_REMATCH[2]))
			line=${BASH_REMATCH[3]}
		done
	fi
	echo "$s"
}

# The run's folder for step times, logs and the packed package, made on first use (removed by steps_table).
steps_dir() {
	: "${STEPS_DIR:=$(mktemp -d "${TMPDIR:-/tmp}/npm-test-steps.XXXXXX")}"
}

step() {
	local name=$1
	shift
	echo "== $name"
	steps_dir
	local started=$SECONDS code=0 times="$STEPS_DIR/times-${#STEPS_ROWS[@]}"
	# In a subshell of its own, whose `times` counts this step's processes only.
	if (steps_account "$times.group"; "$@"; code=$?; times > "$times"; exit "$code"); then
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

# together NAME COMMAND [NAME COMMAND ...]: steps side by side, for suites that mostly wait (on n8n, a browser,
# a registry) and so share 2 cores well. COMMAND is a string run by bash. Each step's output goes to a log,
# printed whole under its "== NAME" line when the step ends, then its passed or FAILED line; when every one
# has ended, a failed one stops the run with its exit code, as `step` does.
together() {
	steps_dir
	local -A name_of=() dir_of=()
	local pid dir first_code=0 names=()
	while [ $# -ge 2 ]; do
		dir="$STEPS_DIR/together-$STEPS_TOGETHER"
		STEPS_TOGETHER=$((STEPS_TOGETHER + 1))
		mkdir -p "$dir"
		(
			set +e
			steps_account "$dir/times.group"
			started=$SECONDS
			bash -c "$2" > "$dir/log" 2>&1
			code=$?
			times > "$dir/times"
			echo "$code $((SECONDS - started))" > "$dir/status"
		) &
		name_of[$!]=$1
		dir_of[$!]=$dir
		names+=("$1")
		shift 2
	done
	local joined
	printf -v joined '%s; ' "${names[@]}"
	echo "== side by side (each one's output follows when it ends): ${joined%; }"
	local remaining=${#name_of[@]} code wall result
	while [ "$remaining" -gt 0 ]; do
		# The first step whose status is written (bash's `wait -n` misses a job that ended before it is called).
		pid=
		while [ -z "$pid" ]; do
			for pid in "${!name_of[@]}" ''; do [ -z "$pid" ] || [ ! -f "${dir_of[$pid]}/status" ] || break; done
			[ -n "$pid" ] || sleep 1
		done
		wait "$pid" || true
		remaining=$((remaining - 1))
		dir=${dir_of[$pid]}
		echo "== ${name_of[$pid]}"
		cat "$dir/log"
		read -r code wall < "$dir/status"
		result=passed
		if [ "$code" -eq 0 ]; then
			echo "== ${name_of[$pid]}: passed ($wall s)"
		else
			result=FAILED
			echo "== ${name_of[$pid]}: FAILED (exit $code)"
			[ "$first_code" -ne 0 ] || first_code=$code
		fi
		STEPS_ROWS+=("${name_of[$pid]} (side by side)|$result|$wall|$(steps_cpu "$dir/times")")
		unset "name_of[$pid]"
	done
	[ "$first_code" -eq 0 ] || exit "$first_code"
}

background() {
	local name=$1
	shift
	steps_dir
	local i=${#STEPS_BACKGROUND[@]}
	local log="$STEPS_DIR/background-$i.log"
	echo "# $name: started in the background (log: $log)"
	# Job control on for the start only: the command gets a process group of its own, to stop it as one.
	set -m
	(
		set +e
		steps_account "$STEPS_DIR/background-$i.times.group"
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
			rmdir "$(cat "$STEPS_DIR/background-$i.times.group" 2> /dev/null)" 2> /dev/null || true
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
	echo "Each step's wall time and CPU time in seconds (CPU: user + system time of $STEPS_CPU_OF):"
	printf '%6s %6s  %-7s %s\n' wall CPU result step
	for row in "${STEPS_ROWS[@]}"; do
		local result cpu
		IFS='|' read -r name result wall cpu <<< "$row"
		printf '%6s %6s  %-7s %s\n' "$wall" "$cpu" "$result" "$name"
	done
	printf '%6s %6s  %-7s %s\n' "$((SECONDS - STEPS_STARTED))" '' '' 'the whole run'
	[ -n "$keep" ] || [ -z "$STEPS_DIR" ] || rm -rf "$STEPS_DIR"
}
