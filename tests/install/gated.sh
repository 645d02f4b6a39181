#!/usr/bin/env bash
# gated.sh VAR COMMAND...: runs COMMAND when the environment has VAR=1, else says how to run it and
# exits 77 (CTest: skipped). For the slow or system-changing tests of tests/install that stay out
# of the default `ctest` run (tests/CMakeLists.txt).
var=$1
shift
if [ "${!var:-0}" != 1 ]; then
  echo "skipped: set $var=1 to run: $*"
  exit 77
fi
exec "$@"
