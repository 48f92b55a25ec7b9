#!/bin/bash
# innermost-frame.sh: reads a sanitizer or libFuzzer crash report on stdin
# and prints the innermost stack frame in vnuma's own sources (plugin/,
# scheduler/, daemon/, tests/fuzz/), or nothing.  run-fuzz.sh uses it to
# tell a crash in a library vnuma cannot fix from its own.  A frame counts
# only with a source path ("in f /src/plugin/x.c:82:14"): an abort's
# report (libFuzzer's deadly-signal handler) starts with frames in the
# fuzzer binary ("in f (/build/tests/fuzz/fuzz-x+0x1234)"), whose path
# would otherwise read as tests/fuzz.  Checked on real reports in
# stacks/ (test-innermost-frame.sh).
sed -n 's/^ *#[0-9]* 0x[0-9a-f]* in \([A-Za-z_0-9]*\) [^ (][^ ]*\/\(plugin\|scheduler\|daemon\|tests\/fuzz\)\/.*/\1/p' |
    head -1
