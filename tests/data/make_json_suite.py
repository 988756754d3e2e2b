#!/usr/bin/env python3
"""Writes json_suite.txt, the one-line cases of JSONTestSuite's parsing
tests, from a checkout of https://github.com/nst/JSONTestSuite:

    python3 tests/data/make_json_suite.py JSONTestSuite/test_parsing COMMIT \\
        > tests/data/json_suite.txt

A case is one line when its file holds no newline and no carriage return:
it can be a record of a JSON Lines file. Each line of the output is
"n" or "y" (every parser must reject or accept it), the file's name and its
bytes, tab-separated; the bytes are escaped so that the file is printable
ASCII: a backslash as \\\\, every byte outside 0x20-0x7e as \\xHH."""

import os
import sys

LICENCE = """\
MIT License

Copyright (c) 2016 Nicolas Seriot

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""


def escaped(data):
    return "".join("\\\\" if b == 0x5C else chr(b) if 0x20 <= b <= 0x7E else f"\\x{b:02x}"
                   for b in data)


def main(folder, commit):
    cases = []
    for name in sorted(os.listdir(folder)):
        if name[:2] not in ("n_", "y_") or not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if b"\n" not in data and b"\r" not in data:
            cases.append(f"{name[0]}\t{name}\t{escaped(data)}")
    print("# The one-line parsing cases of JSONTestSuite, https://github.com/nst/JSONTestSuite")
    print(f"# at commit {commit},")
    print("# test_parsing/n_*.json and y_*.json: written by make_json_suite.py beside")
    print("# this file, which says how to read the lines.")
    print(f"# {sum(c[0] == 'n' for c in cases)} must be rejected (n), "
          f"{sum(c[0] == 'y' for c in cases)} accepted (y). Their licence:")
    print("#")
    for line in LICENCE.splitlines():
        print(("# " + line).rstrip())
    print("\n".join(cases))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
