#!/usr/bin/env bash
# The browser suite (npm run test:ui): n8n's editor in Debian's Chromium. Installs chromium when missing
# (CI runs as root on a fresh machine; browser downloads from elsewhere do not work here).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-debian-packages.sh # waits for an install `npm test` started in the background, if one runs
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then scripts/install-debian-packages.sh chromium; fi
exec node --import tsx test/ui/run.ts
