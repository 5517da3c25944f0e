#!/usr/bin/env bash
# The programs the test suite needs besides Python packages, installed with apt when missing:
#   Java >= 17  for Spark (the `spark` engine, `batch`, `count --split --engine spark`);
#   Chromium    for the real-browser test of the HTML report (tests/test_browser.py).
# A test that needs a missing program fails; it does not skip. Run as root or with sudo.
set -euo pipefail

missing=()
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
  missing+=(default-jre-headless)
fi
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  missing+=(chromium)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1; then sudo="sudo"
else
  echo "tests/tools.sh: the tests need ${missing[*]}; install them (apt-get install ${missing[*]}) as root" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "tests/tools.sh: no apt-get here; install Java >= 17 and Chromium with your package manager" >&2
  exit 1
fi
echo "tests/tools.sh: installing ${missing[*]} with apt-get" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
