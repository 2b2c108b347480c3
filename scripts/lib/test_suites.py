#!/usr/bin/env python3
"""The test suites by kind, read from the sources: every `@Suite(...)` in Tests/ carries exactly
one kind tag (.unit, .integration, .command, .pty, .crossCheck, .install) and, for the suites
that load the machine most, .heavy (Tests/FlickrTestSupport/TestKinds.swift). This toolchain's
`swift test` cannot select by tag, so scripts/test selects by the suites' type names, which this
prints as one `--filter`/`--skip` pattern.

  test_suites.py [--kinds K,K…] [--heavy yes|no]   the pattern of the suites of those kinds
                                                   (default: every kind), heavy or not (default: both);
                                                   prints nothing when none is selected
  test_suites.py --list                            one line per suite: NAME KIND [heavy]
  test_suites.py --check                           exit 1, naming them, if a suite lacks its one kind tag"""
import argparse
import os
import re
import sys

KINDS = ["unit", "integration", "command", "pty", "crossCheck", "install"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests")
SUITE = re.compile(r"^[ \t]*@Suite\s*\(", re.MULTILINE)  # an attribute opens its line
TYPE = re.compile(r"\b(?:struct|class|enum|actor)\s+([A-Za-z_][A-Za-z0-9_]*)")


def arguments(text, start):
    """The text inside the parentheses that open at `start` (strings may hold parentheses)."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
        i += 1
    raise ValueError("unbalanced @Suite(")


def suites():
    """(type name, [tags], file) of every @Suite under Tests/."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        # Not a package's build folder (Tests/Consumer/.build holds other packages' tests).
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in SUITE.finditer(text):
                args, end = arguments(text, m.end() - 1)
                tags = [t for t in re.findall(r"\.tags\(([^)]*)\)", re.sub(r'"(?:\\.|[^"\\])*"', '""', args))]
                names = [t.strip().lstrip(".") for group in tags for t in group.split(",") if t.strip()]
                declared = TYPE.search(text, end)
                if declared:
                    out.append((declared.group(1), names, os.path.relpath(path, ROOT)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--heavy", choices=["yes", "no"])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    found = suites()
    if args.check:
        bad = [(n, t, p) for n, t, p in found if len([k for k in t if k in KINDS]) != 1 or any(k not in KINDS + ["heavy"] for k in t)]
        for n, t, p in bad:
            print("%s (%s): tags %s; every suite has exactly one of %s, and heavy or not" % (n, p, t, ", ".join(KINDS)), file=sys.stderr)
        return 1 if bad or not found else 0
    if args.list:
        for n, t, _ in sorted(found):
            print(" ".join([n] + [k for k in t if k in KINDS] + (["heavy"] if "heavy" in t else [])))
        return 0
    wanted = {k.strip() for k in args.kinds.split(",") if k.strip()}
    unknown = wanted - set(KINDS)
    if unknown:
        print("test_suites.py: unknown kind %s (kinds: %s)" % (", ".join(sorted(unknown)), ", ".join(KINDS)), file=sys.stderr)
        return 2
    names = sorted({n for n, t, _ in found if wanted & set(t)
                    and (args.heavy is None or ("heavy" in t) == (args.heavy == "yes"))})
    if names:
        print(r"\.(%s)\b" % "|".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
