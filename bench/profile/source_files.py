#!/usr/bin/env python3
"""The alertd source files a profiled request runs code of, by module, from a callgrind profile.

usage: source_files.py CALLGRIND_OUT REQUESTS

Counts a file when code from it ran (self cost, inlined code included: callgrind's fl=, fi= and fe=) at
least once per ten requests, so that the once-a-second timers and start-up leftovers do not count. Prints
each module's files with their Ir per request, then the number of files and modules. This is issue 24's
"files a POST touches" measure: profile a debug build (PROFILE_CONFIGURATION=debug), where nothing is
inlined away, to count what a reader follows.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_summary import parse  # noqa: E402

SOURCE = re.compile(r"(?:^|/)Sources/([^/]+)/(.+\.swift)$")


def main():
    path, requests = sys.argv[1], int(sys.argv[2])
    _, _, cost_by_file = parse(path)
    modules = collections.defaultdict(list)
    for file, cost in cost_by_file.items():
        match = SOURCE.search(file or "")
        if match and cost * 10 >= requests:
            modules[match.group(1)].append((match.group(2), cost / requests))
    total = 0
    for module in sorted(modules):
        files = sorted(modules[module], key=lambda item: -item[1])
        total += len(files)
        print(f"{module} ({len(files)} files)")
        for name, cost in files:
            print(f"  {cost:>9,.0f} Ir/request  {name}")
    print(f"{total} files in {len(modules)} modules")


main()
