# step NAME COMMAND...: runs one step of `npm test` and ends it with a line that says how it went:
# "== NAME: passed (N s)", or "== NAME: FAILED (exit N)" and then the whole run stops with that code.
step() {
	local name=$1
	shift
	echo "== $name"
	local started=$SECONDS
	if "$@"; then
		echo "== $name: passed ($((SECONDS - started)) s)"
	else
		local code=$?
		echo "== $name: FAILED (exit $code)"
		exit "$code"
	fi
}
