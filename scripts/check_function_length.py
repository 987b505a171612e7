#!/usr/bin/env python3
"""Lists the functions of core/ and app/ longer than a limit (docs/architecture.md: none over 200 lines).

    scripts/check_function_length.py [--root DIR] [--limit 200] [--top N]

Reads the sources as text (comments and literals blanked): a function is a brace block whose head ends like a
signature ("...)" with qualifiers, or a constructor's initialiser list), at any depth outside another function, so
member functions defined in a class count on their own. Lambdas and local classes count towards the function that
holds them. Exit 1 when a function is over the limit.
"""
import argparse
import os
import re
import sys

CONTROL = re.compile(r"^(if|for|while|switch|catch|else|do|namespace|class|struct|union|enum|try|extern)\b")
SIGNATURE = re.compile(r"\)\s*(const|noexcept|override|final|mutable|\s)*(->\s*[\w:<>,\s*&]+)?$|\)\s*:\s*[\w:]+[({].*[)}]$",
                       re.S)


def blank_literals(text):
    """The text with comments, string and character literals blanked (newlines kept), so braces in them vanish."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i):
            k = text.find("(", i)
            delimiter = ")" + text[i + 2:k] + '"'
            j = text.find(delimiter, k)
            j = n if j < 0 else j + len(delimiter)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separators
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, length in lines) of every function body that is not inside another one."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = blank_literals(handle.read())
    stack = []       # per open brace: True when it opened a function body
    head_start = 0   # where the text before the next brace began (after the last ';', '{' or '}')
    inside = None    # (name, first line, depth) of the function being read
    for i, c in enumerate(text):
        if c == "{":
            head = text[head_start:i].strip()
            is_function = False
            if inside is None and head and not CONTROL.match(head.split("\n")[-1].strip()) and not head.startswith("#"):
                flat = " ".join(line for line in head.split("\n") if not line.strip().startswith("#"))
                flat = re.sub(r"\s+", " ", flat).strip()
                if "(" in flat and SIGNATURE.search(flat) and not CONTROL.match(flat) and "=" not in flat.split("(")[0]:
                    name = re.search(r"([\w:~]+(?:<[^()]*>)?|operator\S+)\s*\(", flat)
                    first = text.count("\n", 0, head_start + (len(text[head_start:i]) - len(text[head_start:i].lstrip()))) + 1
                    inside = (name.group(1) if name else flat[:40], first, len(stack))
                    is_function = True
            stack.append(is_function)
            head_start = i + 1
        elif c == "}":
            if stack:
                opened_function = stack.pop()
                if opened_function and inside is not None and inside[2] == len(stack):
                    last = text.count("\n", 0, i) + 1
                    yield inside[0], inside[1], last - inside[1] + 1
                    inside = None
            head_start = i + 1
        elif c == ";":
            head_start = i + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--top", type=int, default=0, help="also print the N longest functions")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    found = []
    for top in ("core", "app"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".cpp", ".hpp")):
                    path = os.path.join(folder, name)
                    for function, line, length in functions(path):
                        found.append((length, os.path.relpath(path, root), line, function))
    found.sort(reverse=True)
    for length, path, line, function in found[: args.top]:
        print(f"{length:5d} {path}:{line} {function}")
    over = [f for f in found if f[0] > args.limit]
    for length, path, line, function in over:
        print(f"{path}:{line}: {function} is {length} lines (limit {args.limit})")
    print(f"function length: {len(found)} functions, {len(over)} over {args.limit} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
