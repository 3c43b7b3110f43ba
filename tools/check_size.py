#!/usr/bin/env python3
"""tools/check_size.py ROOT - the size rules of the style guide (issue 9):

  * no product function longer than 120 lines (signature to closing
    brace) unless the comment right above it, or its first body lines,
    say why with `/* long: ... */`;
  * no product file longer than 1,000 lines (no exception: planner/search.c,
    the last one, is split into search.c, search_core.c and
    search_setup.c).

Product sources are the .c and .h files of the module folders (base,
import, ir, planner, templates, codegen, cli, runtime).  SKIP lists
files not yet held to the rules (to be emptied).  Prints one line per
violation, FILE:LINE: ..., and exits 1 when there is one; with --list,
prints every function over LIMIT lines (default 80) and exits 0;
--self-test checks the checker on a made-up tree.
A function is found by its layout (clang-format's): a line at column 0
that is not a preprocessor line, a comment or a declaration ending in
`;`, whose signature ends in `{`, and whose body ends at the next `}` at
column 0.
"""
import os
import re
import sys

MODULES = ["base", "import", "ir", "planner", "templates", "codegen", "cli",
           "runtime"]
MAX_FUNC = 120
MAX_FILE = 1000
# Not yet held to the rules (none: the split of ir/ brought its files
# under 1,000 lines).
SKIP_PREFIXES = []

START = re.compile(r"^[A-Za-z_][A-Za-z0-9_ \t\*]*\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(lines):
    """(name, first line index, last line index) of each definition."""
    out = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        m = START.match(line)
        if not m or line.startswith(("typedef", "static const", "const ")) \
                and "(" not in line.split("=")[0]:
            i += 1
            continue
        # the signature runs until a line ending in `{` (definition) or
        # `;` (declaration)
        j = i
        while j < n and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j >= n or lines[j].rstrip().endswith(";") or "=" in \
                "".join(lines[i:j + 1]).split("(")[0]:
            i = j + 1
            continue
        k = j + 1
        while k < n and not lines[k].startswith("}"):
            k += 1
        out.append((m.group(1), i, k))
        i = k + 1
    return out


def has_reason(lines, first, last):
    """`/* long:` in the comment right above the function or in its first
    five body lines."""
    i = first - 1
    above = []
    while i >= 0 and (lines[i].startswith(("/*", " *", "//"))):
        above.append(lines[i])
        i -= 1
    text = "".join(above) + "".join(lines[first:min(last, first + 6)])
    return "/* long:" in text


def product_files(root):
    for mod in MODULES:
        base = os.path.join(root, mod)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith((".c", ".h")):
                    full = os.path.join(dirpath, f)
                    yield os.path.relpath(full, root)


def self_test():
    """The rules catch what they should (a test must be able to fail)."""
    import tempfile
    body = "".join("    x++;\n" for _ in range(119))
    fn = "int f(int x) {\n" + body + "    return x;\n}\n"  # 122 lines
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "planner"))
        os.makedirs(os.path.join(d, "ir"))

        def put(rel, text):
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)

        put("planner/a.c", "/* one */\n" + fn)
        put("planner/b.c", "/* long: a table */\n" + fn.replace("f(", "g("))
        put("planner/c.c", "int h(void);\n" * 1001)
        put("planner/search.c", "int h(void);\n" * 1200)  # no exception
        put("ir/skipped.c", fn)
        out = []
        real_print = print

        def grab(*a, **k):
            out.append(" ".join(str(x) for x in a))

        real_skip = SKIP_PREFIXES
        globals()["print"] = grab
        globals()["SKIP_PREFIXES"] = ["ir/"]  # the skip works when used
        try:
            rc = main(["check_size.py", d])
        finally:
            globals()["print"] = real_print
            globals()["SKIP_PREFIXES"] = real_skip
        want = ["planner/a.c:2: function f is 122 lines, over 120 without "
                "/* long: why */", "planner/c.c:1: 1001 lines, over 1000",
                "planner/search.c:1: 1200 lines, over 1000"]
        if rc != 1 or out != want:
            print("self-test failed: rc %d, got %r" % (rc, out))
            return 1
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv[1:] if not a.startswith("--")]
    listing = "--list" in argv
    root = args[0] if args else "."
    limit = int(args[1]) if len(args) > 1 else 80
    bad = []
    for rel in product_files(root):
        if any(rel.startswith(p) for p in SKIP_PREFIXES) and not listing:
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.readlines()
        maxf = MAX_FILE
        if len(lines) > maxf and not listing:
            bad.append(f"{rel}:1: {len(lines)} lines, over {maxf}")
        for name, first, last in functions(lines):
            length = last - first + 1
            if listing:
                if length > limit:
                    print(f"{length:5d} {rel}:{first + 1}: {name}")
                continue
            if length > MAX_FUNC and not has_reason(lines, first, last):
                bad.append(f"{rel}:{first + 1}: function {name} is {length} "
                           f"lines, over {MAX_FUNC} without /* long: why */")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
