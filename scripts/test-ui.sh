#!/usr/bin/env bash
# The browser suite (npm run test:ui): n8n's editor in Debian's Chromium. Installs chromium when missing
# (CI runs as root on a fresh machine; browser downloads from elsewhere do not work here).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq chromium > /dev/null
fi
exec node --import tsx test/ui/run.ts
