#!/bin/sh
# script.sh - bad-input fixture: an executable shell script, not an ELF binary.
# mdat should say it needs an ELF executable (or explain it would trace /bin/sh).
echo "script.sh ran"
exit 0
