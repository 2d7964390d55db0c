#!/bin/sh
# Runs a command with a display: the current one if there is one, else a virtual one from xvfb-run
# (Mesa's llvmpipe gives it OpenGL). Neither: exit 77, which CTest reports as skipped.
# usage: with_display.sh XVFB_RUN_PATH_OR_EMPTY COMMAND [ARGS...]
xvfb_run=$1
shift
if [ -n "$DISPLAY" ]; then
  exec "$@"
elif [ -n "$xvfb_run" ] && [ -x "$xvfb_run" ]; then
  exec "$xvfb_run" -a -s "-screen 0 1920x1080x24" "$@"
else
  echo "skipped: no display and no xvfb-run (Debian: apt-get install xvfb libgl1-mesa-dri)"
  exit 77
fi
