#!/usr/bin/env python3
"""check-source.py SOURCE_ROOT -- the tree keeps its house habits.

1. Every C file is formatted as .clang-format says (clang-format
   --dry-run --Werror; reformat with `clang-format -i FILE`).
2. No comment cites an issue number: a comment says why the code is as it
   is, the tracker says when; numbers go stale when issues close.
3. Every file name a source file mentions (vn-*.c, vnd-*.h, test-*.sh, ...)
   is a file of the tree or one the build generates, so a rename cannot
   leave a comment pointing at nothing.

The files are `git ls-files` of SOURCE_ROOT (a checkout), or every file
below it when it is not one (a release tarball).  Prints one line per
problem and exits 1 if there is any.
"""
import os
import re
import shutil
import subprocess
import sys

SOURCE = re.compile(r"(\.[ch]|\.sh|\.py|/meson\.build|^meson\.build|Makefile)$")
MENTION = re.compile(r"(?<![A-Za-z0-9_./-])((?:vn|vnd|vnumactl|test|bench|fuzz|run|check)"
                     r"-[a-z0-9-]+\.(?:c|h|sh|py))\b")
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def tree_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def generated(root, files):
    """configure_file() outputs: names the build makes, not the tree."""
    names = set()
    for f in files:
        if f.endswith("meson.build"):
            text = open(os.path.join(root, f), encoding="utf-8").read()
            names.update(re.findall(r"output\s*:\s*'([^']+)'", text))
    return names


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sorted(tree_files(root))
    problems = []

    c_files = [f for f in files if f.endswith((".c", ".h"))]
    clang_format = shutil.which("clang-format")
    if not clang_format:
        problems.append("clang-format is not installed (tools/install-deps.sh installs it)")
    else:
        for i in range(0, len(c_files), 64):
            r = subprocess.run([clang_format, "--dry-run", "--Werror"] + c_files[i:i + 64],
                               cwd=root, capture_output=True, text=True)
            for line in r.stderr.splitlines():
                m = re.match(r"(\S+?):(\d+):\d+: error: code should be clang-formatted", line)
                if m:
                    problems.append(f"{m.group(1)}:{m.group(2)}: not formatted as "
                                    f".clang-format says (clang-format -i {m.group(1)})")
            if r.returncode and not r.stderr:
                problems.append(f"clang-format exited {r.returncode}")

    known = {os.path.basename(f) for f in files} | generated(root, files)
    for f in files:
        if not SOURCE.search(f) or f.startswith("tests/fuzz/corpus/"):
            continue
        try:
            lines = open(os.path.join(root, f), encoding="utf-8").read().splitlines()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for n, line in enumerate(lines, 1):
            if ISSUE.search(line) and f != "tests/doc/check-source.py":
                problems.append(f"{f}:{n}: cites an issue number: {line.strip()}")
            for name in MENTION.findall(line):
                if name not in known:
                    problems.append(f"{f}:{n}: names {name}, which is not a file of the tree")

    seen = set()
    for p in problems:
        if p not in seen:
            print(p)
            seen.add(p)
    print(f"{len(c_files)} C files, {len(files)} files: "
          f"{len(seen)} problem{'s' if len(seen) != 1 else ''}")
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
