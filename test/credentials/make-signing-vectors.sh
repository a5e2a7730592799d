#!/usr/bin/env bash
# Makes test/credentials/signing-vectors.json: request-signing test vectors computed OUTSIDE the
# package, with openssl, so the credential's own code is never its own oracle.
#
# Spec rule (service-spec.md, "Authentication"): lowercase hex HMAC-SHA256, keyed with the client
# secret, over the timestamp immediately followed by the payload. Each case writes that exact text
# to a file and runs `openssl dgst -sha256 -hmac <secret>` over it.
#
#   bash test/credentials/make-signing-vectors.sh          # rewrite the JSON next to this script
#   bash test/credentials/make-signing-vectors.sh --stdout # print it instead
#   bash test/credentials/make-signing-vectors.sh --check  # exit 1 if the committed JSON differs
#
# Needs only bash, printf and openssl.
set -euo pipefail

SECRET='SENTINEL-client-secret-7f3a9c'
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/signing-vectors.json"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

entries=()

# add_vector NAME TIMESTAMP PAYLOAD_FILE DESCRIPTION
add_vector() {
	local name="$1" ts="$2" payload="$3" description="$4"
	local signed="$WORK/$name.signed"
	# The signed text: timestamp, then the payload bytes, nothing between.
	printf '%s' "$ts" >"$signed"
	cat "$payload" >>"$signed"
	local signature payload_b64
	signature="$(openssl dgst -sha256 -hmac "$SECRET" -r "$signed" | cut -d' ' -f1)"
	payload_b64="$(openssl base64 -A -in "$payload")"
	entries+=("    {
      \"name\": \"$name\",
      \"description\": \"$description\",
      \"timestamp\": \"$ts\",
      \"payloadBase64\": \"$payload_b64\",
      \"signature\": \"$signature\"
    }")
}

# 1. A JSON body, serialized compactly (as JSON.stringify does).
printf '%s' '{"messaging_product":"whatsapp","to":"+15551234567","type":"text","text":{"body":"Hello"}}' >"$WORK/json-body"
add_vector json-body 1700000000 "$WORK/json-body" 'POST with a JSON object body'

# 2. Multibyte text: signed as UTF-8 bytes (2-, 3- and 4-byte characters, right-to-left script).
printf '%s' '{"body":"Olá 👋 مرحبا — ✓"}' >"$WORK/multibyte-body"
add_vector multibyte-body 1700000001 "$WORK/multibyte-body" 'POST with emoji and other multibyte text'

# 3. GET with no query string: the payload is empty, the signed text is the timestamp alone.
: >"$WORK/empty-query"
add_vector empty-query 1700000002 "$WORK/empty-query" 'GET without a query string (also multipart timestampOnly)'

# 4. GET query string as the credential builds it: encodeURIComponent per key and value (spaces
#    %20, never +), pairs in insertion order, arrays as repeated keys, no leading '?'. From
#    { search: 'a b&c=d/e?', page: 2, tag: 'x+y', name: 'José', status: ['sent', 'read'], empty: '' }.
printf '%s' 'search=a%20b%26c%3Dd%2Fe%3F&page=2&tag=x%2By&name=Jos%C3%A9&status=sent&status=read&empty=' >"$WORK/get-query"
add_vector get-query 1700000003 "$WORK/get-query" 'GET query string with spaces and reserved characters (also multipart queryString)'

# 5. A multipart body holding a text field and a file of every byte 0x00..0xff.
boundary='----n8nTestBoundary7f3a9c'
{
	printf -- '--%s\r\n' "$boundary"
	printf 'Content-Disposition: form-data; name="messaging_product"\r\n\r\n'
	printf 'whatsapp\r\n'
	printf -- '--%s\r\n' "$boundary"
	printf 'Content-Disposition: form-data; name="file"; filename="bytes.bin"\r\n'
	printf 'Content-Type: application/octet-stream\r\n\r\n'
	for i in $(seq 0 255); do
		# shellcheck disable=SC2059 # the format is the byte itself, as an octal escape
		printf "\\$(printf '%03o' "$i")"
	done
	printf '\r\n--%s--\r\n' "$boundary"
} >"$WORK/multipart-body"
add_vector multipart-body 1700000004 "$WORK/multipart-body" "multipart/form-data body (boundary $boundary) with a file of bytes 0x00-0xff"

json="$(
	printf '{\n'
	printf '  "comment": "Made by test/credentials/make-signing-vectors.sh with openssl; do not edit by hand.",\n'
	printf '  "secret": "%s",\n' "$SECRET"
	printf '  "vectors": [\n'
	for i in "${!entries[@]}"; do
		if ((i > 0)); then printf ',\n'; fi
		printf '%s' "${entries[$i]}"
	done
	printf '\n  ]\n}\n'
)"

case "${1:-}" in
--stdout) printf '%s\n' "$json" ;;
--check)
	if [[ "$(cat "$OUT")" == "$json" ]]; then
		echo 'signing-vectors.json matches openssl'
	else
		echo 'signing-vectors.json differs from what openssl computes now' >&2
		exit 1
	fi
	;;
*) printf '%s\n' "$json" >"$OUT" && echo "wrote $OUT" ;;
esac
