#!/usr/bin/env python3
"""Summarises a callgrind profile (run with --compress-strings=no --compress-pos=no) per request.

usage: callgrind_summary.py CALLGRIND_OUT REQUESTS [PATTERN ...]

Prints the total instructions (Ir) per request, the self cost per request grouped by object
(libmicrohttpd, libc, Swift runtime, Swift concurrency, libdispatch, alertd), libc's memset
apart (callgrind counts each byte of `rep stosb` as an instruction, which overstates it), the
alertd self cost per source file, and the inclusive cost per request of every function whose
demangled name matches a PATTERN (regular expressions), and the top functions by self and by inclusive
cost (SUMMARY_TOP, default 20; 0 leaves them out). Demangles with swift-demangle when found.
"""
import collections
import os
import re
import shutil
import subprocess
import sys


def demangle(names):
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not os.path.exists(tool):
        return {n: n for n in names}
    names = list(names)
    out = subprocess.run([tool, "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.split("\n")))


def parse(path):
    """Self cost by (object, file, function), inclusive cost of calls by caller and callee, and self cost by the
    source file the code is from (inlined code counted in its own file: callgrind's fi= and fe=)."""
    self_cost = collections.Counter()      # (object, file, function) -> Ir
    calls = collections.defaultdict(collections.Counter)  # caller -> callee -> inclusive Ir
    source_cost = collections.Counter()    # source file, inlined code in its own -> Ir
    obj = fl = fn = None
    inline = None
    cfn = cob = None
    pending_call = False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c == "+" or c == "-" or c == "*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    if (cob, cfn) != (obj, fn):
                        calls[(obj, fn)][(cob or obj, cfn)] += cost
                    pending_call = False
                else:
                    self_cost[(obj, fl, fn)] += cost
                    source_cost[inline or fl] += cost
                continue
            key, _, value = line.partition("=")
            if key == "ob":
                obj = value
            elif key == "fl":
                fl, inline = value, None
            elif key in ("fi", "fe"):
                inline = None if value == fl else value
            elif key == "fn":
                fn = value
                cob = None
                inline = None
            elif key == "cob":
                cob = value
            elif key == "cfn":
                cfn = value
            elif key == "calls":
                pending_call = True
    return self_cost, calls, source_cost


def main():
    path, requests = sys.argv[1], int(sys.argv[2])
    patterns = [re.compile(p) for p in sys.argv[3:]]
    self_cost, calls, _ = parse(path)
    total = sum(self_cost.values())
    functions = {(o, f) for (o, _, f) in self_cost} | set(calls) | {c for v in calls.values() for c in v}
    names = demangle({f for (_, f) in functions if f})
    per = lambda x: x / requests

    print(f"total: {per(total):,.0f} Ir/request over {requests} requests")
    groups = collections.Counter()
    memset = 0
    files = collections.Counter()
    for (o, fl, f), cost in self_cost.items():
        base = os.path.basename(o or "?")
        if "memset" in (f or ""):
            memset += cost
            continue
        if "microhttpd" in base:
            group = "libmicrohttpd"
        elif base.startswith("libc.so") or base.startswith("ld-linux"):
            group = "libc (malloc/free, string, syscall stubs)"
        elif "Concurrency" in base:
            group = "Swift concurrency runtime"
        elif "dispatch" in base:
            group = "libdispatch"
        elif "libswiftCore" in base:
            group = "Swift core runtime/stdlib (retain/release, String, Array)"
        elif "libswift" in base or "Foundation" in base:
            group = "other Swift libraries (" + base + ")"
        elif base in ("alertd", "baseline"):
            group = base + " code"
            files[os.path.basename(fl or "?")] += cost
        else:
            group = base
        groups[group] += cost
    print(f"  memset (libc): {per(memset):,.0f} Ir/request (see perf for its real share)")
    for group, cost in groups.most_common():
        print(f"  {group}: {per(cost):,.0f}")
    if files:
        print("alertd self cost by source file:")
        for name, cost in files.most_common(25):
            print(f"  {name}: {per(cost):,.0f}")

    by_function = collections.Counter()
    for (o, _, f), cost in self_cost.items():
        by_function[(o, f)] += cost
    top = int(os.environ.get("SUMMARY_TOP", "20"))
    if top:
        print(f"top {top} functions by self cost (exclusive Ir/request):")
        for (o, f), cost in by_function.most_common(top):
            print(f"  {per(cost):>9,.0f}  {(names.get(f, f) or '?')[:150]}  [{os.path.basename(o or '?')}]")
        inclusive = collections.Counter({k: by_function[k] + sum(calls[k].values()) for k in functions})
        print(f"top {top} functions by inclusive cost (Ir/request; recursion may count twice):")
        for (o, f), cost in inclusive.most_common(top):
            print(f"  {per(cost):>9,.0f}  {(names.get(f, f) or '?')[:150]}  [{os.path.basename(o or '?')}]")

    if patterns:
        print("inclusive Ir/request (self + callees; recursion not counted twice):")
        rows = []
        for key in functions:
            name = names.get(key[1], key[1]) or "?"
            if any(p.search(name) for p in patterns):
                inclusive = by_function[key] + sum(calls[key].values())
                rows.append((inclusive, name, os.path.basename(key[0] or "?")))
        for inclusive, name, base in sorted(rows, reverse=True):
            if inclusive / requests >= 1:
                print(f"  {per(inclusive):>9,.0f}  {name[:150]}  [{base}]")


if __name__ == "__main__":
    main()
