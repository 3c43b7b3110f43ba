#!/usr/bin/env python3
"""tools/check_errors.py ROOT - the one error path (issue 9, item 6).

Every message planwrap prints for the user goes through the diagnostics
sink (base_diag, base/base.h): no product source may write to stderr
itself.  This check reads the .c and .h files of the module folders
(base, import, ir, planner, templates, codegen, cli; not runtime/, the
library that generated code links) with comments, string and character
literals blanked out, and reports each use of

    stderr, STDERR_FILENO, perror(, <err.h> (err, warn, ...)

that the allow-list below does not name.  An entry allows a pattern in
one file at most COUNT times, with the reason: a new direct print in an
allowed file still fails.  Prints FILE:LINE: ... per violation and exits
1 when there is one; --self-test checks the checker on a made-up tree.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_size  # noqa: E402  (its list of product files)

FORBIDDEN = re.compile(r"\bstderr\b|\bSTDERR_FILENO\b|\bperror\s*\(|"
                       r"#\s*include\s*<err\.h>")

# (file, pattern, at most this many lines, why)
ALLOWED = [
    ("base/fatal.c", r"\bstderr\b", 5,
     "out of memory and internal errors abort at once, without memory, "
     "possibly inside the sink"),
    ("cli/cli.c", r"base_diag_new\(stderr,", 1,
     "the one sink of a run"),
    ("cli/cli.c", r"cli_usage\(stderr\)", 1,
     "the usage text when no command is given (help, not a message)"),
    ("cli/cmd_gen.c", r"fprintf\(stderr,", 1,
     "gen --times: the time of each phase, asked for, not an error"),
    ("cli/cmd_schedule.c", r"cli_schedule_summary\(stderr,", 1,
     "the summary of schedule, not an error"),
    ("cli/plan_opts.c", r"\bstderr\b|\bSTDERR_FILENO\b", 4,
     "the search's progress line on a terminal (the callback "
     "plan_search_opts.progress): progress asked for, not an error"),
]


def blank(text):
    """text with comments and string/character literals replaced by
    spaces (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def product_files(root):
    """check_size.py's product files without runtime/ (the library of
    generated code reports its own failures: docs/runtime.md)."""
    for rel in check_size.product_files(root):
        if not rel.startswith("runtime" + os.sep):
            yield rel


def check_file(rel, text):
    """The violations of one file, as FILE:LINE: messages."""
    lines = blank(text).split("\n")
    used = {}
    bad = []
    for no, line in enumerate(lines, 1):
        if not FORBIDDEN.search(line):
            continue
        ok = False
        for k, (path, pat, count, _why) in enumerate(ALLOWED):
            if path == rel and re.search(pat, line) and \
                    used.get(k, 0) < count:
                used[k] = used.get(k, 0) + 1
                ok = True
                break
        if not ok:
            bad.append(f"{rel}:{no}: prints to stderr outside the "
                       f"diagnostics sink (report to a base_diag): "
                       f"{line.strip()}")
    return bad


def run(root):
    bad = []
    for rel in product_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            bad += check_file(rel, f.read())
    return bad


def self_test():
    """The check catches what it should (a test must be able to fail)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "codegen"))
        os.makedirs(os.path.join(d, "cli"))
        os.makedirs(os.path.join(d, "runtime"))

        def put(rel, text):
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)

        put("codegen/a.c", "/* stderr in a comment */\n"
            "static const char *s = \"stderr \\\" perror(\";\n"
            "char c = '\"'; // fprintf(stderr, ...)\n"
            "void f(void) { fprintf(stderr, \"x\"); }\n"
            "void g(void) { perror(\"y\"); }\n")
        put("cli/cmd_schedule.c",
            "void h(void) { cli_schedule_summary(stderr, a, b); }\n"
            "void i(void) { cli_schedule_summary(stderr, a, b); }\n")
        put("cli/b.c", "#include <err.h>\nint x = STDERR_FILENO;\n")
        put("runtime/r.c", "void r(void) { fputs(\"x\", stderr); }\n")
        got = [b.split(": prints")[0] for b in run(d)]
        want = ["codegen/a.c:4", "codegen/a.c:5", "cli/b.c:1", "cli/b.c:2",
                "cli/cmd_schedule.c:2"]
        if sorted(got) != sorted(want):
            print("self-test failed: got %r, want %r" % (got, want))
            return 1
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv[1:] if not a.startswith("--")]
    bad = run(args[0] if args else ".")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
