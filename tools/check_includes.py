#!/usr/bin/env python3
"""tools/check_includes.py ROOT - the module layering (issue 9, item 8).

One stage per folder, data flowing one way (docs/architecture.md,
"Folders: what each owns and may include"): a module includes its own
headers and the public headers of the modules below it, nothing else.
CMake enforces most of this through per-module include directories; this
check also catches what a path can get around (`"../planner/x.h"`, an
angle-bracket path) and keeps the architecture table true:

  * every `#include "..."` of a product .c/.h file (check_size.py's list)
    names either a file of its own folder by bare name (or a header
    generated into its build folder, GENERATED), or MODULE/HEADER where
    HEADER is one of MODULE's public headers and MODULE is the file's own
    module or one it may include (DEPS);
  * no `#include <...>` names a module folder, no include path has `..`;
  * benchmarks (bench/) include public headers only;
  * the "may include" column of the table in docs/architecture.md names
    exactly DEPS for each module (a change to one must change the other);
  * no CMake file in a module folder uses file(GLOB), and none anywhere
    globs C sources or headers: a module's sources are an explicit list
    (test data such as golden cases may be globbed); every
    templates/**/*.mustache is in templates/CMakeLists.txt's list (the
    built-in templates are embedded from it).

Prints FILE:LINE: ... per violation and exits 1 when there is one;
--self-test checks the checker on a made-up tree.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_size  # noqa: E402  (its list of product files)

# The modules each module may include (besides itself), lowest first:
# base < ir < {import, planner}; templates needs only base; codegen
# renders a plan with templates; cli drives them all.  runtime/ is the
# library generated code links: C library only.
DEPS = {
    "base": [],
    "ir": ["base"],
    "import": ["base", "ir"],
    "planner": ["base", "ir"],
    "templates": ["base"],
    "codegen": ["base", "ir", "planner", "templates"],
    "cli": ["base", "ir", "import", "planner", "templates", "codegen"],
    "runtime": [],
}
PUBLIC = {
    "base": ["base.h", "hash.h"],
    "ir": ["ir.h"],
    "import": ["import.h"],
    "planner": ["planner.h", "compare.h", "schedule.h"],
    "templates": ["mustache.h"],
    "codegen": ["codegen.h"],
    "cli": ["cli.h"],
    "runtime": ["planwrap_rt.h"],
}
# Headers a module's build generates into its build folder.
GENERATED = {
    "import": ["onnx.pb-c.h"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]*)[>"]')


def check_file(root, rel, bad):
    mod = rel.split("/")[0]
    folder = os.path.dirname(os.path.join(root, rel))
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.readlines()
    for no, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        kind, path = m.group(1), m.group(2)
        close = ">" if kind == "<" else '"'
        where = f"{rel}:{no}: #include {kind}{path}{close}"
        parts = path.split("/")
        if ".." in parts:
            bad.append(f"{where}: a path with '..' gets around the "
                       f"include directories")
            continue
        if kind == "<":
            if len(parts) > 1 and parts[0] in DEPS:
                bad.append(f'{where}: use "{path}"')
            continue
        if len(parts) == 1:
            if not (os.path.isfile(os.path.join(folder, path)) or
                    path in GENERATED.get(mod, [])):
                bad.append(f"{where}: not a file of {mod}/")
            continue
        other, header = parts[0], "/".join(parts[1:])
        if other not in DEPS:
            bad.append(f"{where}: not a module's header")
        elif other != mod and other not in DEPS[mod]:
            bad.append(f"{where}: {mod}/ may not include {other}/ "
                       f"(it may include: {', '.join(DEPS[mod]) or 'none'})")
        elif header not in PUBLIC[other]:
            what = "its own" if other == mod else f"{other}/'s"
            bad.append(f"{where}: {what} private header"
                       + (f' (write "{header}")' if other == mod else ""))


def check_bench(root, bad):
    """Benchmarks use public headers only (any module's)."""
    top = os.path.join(root, "bench")
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for f in sorted(filenames):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                for no, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) != '"':
                        continue
                    parts = m.group(2).split("/")
                    if ".." in parts or (len(parts) == 2 and
                                         parts[0] in PUBLIC and
                                         parts[1] not in PUBLIC[parts[0]]):
                        bad.append(f'{rel}:{no}: #include "{m.group(2)}": '
                                   f"benchmarks use public headers only")


def check_doc(root, bad):
    """The "may include" column of docs/architecture.md's table."""
    rel = "docs/architecture.md"
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.readlines()
    seen = set()
    row = re.compile(r"^\|\s*`([a-z]+)/`\s*\|")
    name = re.compile(r"\b(" + "|".join(DEPS) + r")\b")
    for no, line in enumerate(lines, 1):
        m = row.match(line)
        if not m or m.group(1) not in DEPS:
            continue
        mod = m.group(1)
        seen.add(mod)
        col = line.rstrip().rstrip("|").split("|")[-1]
        col = re.sub(r"`[^`]*`", "", col)  # function names in backquotes
        if "every module above" in col:
            named = set(DEPS) - {mod, "runtime"}
        else:
            named = set(name.findall(col))
        if named != set(DEPS[mod]):
            bad.append(f"{rel}:{no}: {mod}/ may include "
                       f"{', '.join(sorted(named)) or 'nothing'} here, but "
                       f"tools/check_includes.py says "
                       f"{', '.join(sorted(DEPS[mod])) or 'nothing'}")
    for mod in sorted(set(DEPS) - seen):
        bad.append(f"{rel}:1: no row for {mod}/ in the table")


def check_cmake(root, bad):
    """No file(GLOB ...) of .c or .h files in any CMakeLists.txt."""
    glob = re.compile(r"file\s*\(\s*GLOB(_RECURSE)?\b([^)]*)\)", re.S)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(x for x in dirnames
                             if not x.startswith(".") and x != "build")
        for f in sorted(filenames):
            if f != "CMakeLists.txt" and not f.endswith(".cmake"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            with open(full, encoding="utf-8") as fh:
                text = fh.read()
            in_module = rel.split(os.sep)[0] in DEPS
            for m in glob.finditer(text):
                if in_module or re.search(r"\*\.[ch]\s|\*\s",
                                          m.group(2) + " "):
                    no = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{rel}:{no}: file(GLOB): list the files "
                               f"explicitly")


def check_templates(root, bad):
    """Every built-in template is in the embedded list."""
    rel = "templates/CMakeLists.txt"
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as fh:
        listed = set(re.findall(r"[\w/.-]+\.mustache", fh.read()))
    top = os.path.join(root, "templates")
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".mustache"):
                t = os.path.relpath(os.path.join(dirpath, f), top)
                if t.replace(os.sep, "/") not in listed:
                    bad.append(f"{rel}:1: templates/{t} is not in "
                               f"PW_MUSTACHE_FILES (it would not be embedded)")


def main(argv):
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = args[0] if args else "."
    bad = []
    for rel in check_size.product_files(root):
        check_file(root, rel, bad)
    check_bench(root, bad)
    check_doc(root, bad)
    check_cmake(root, bad)
    check_templates(root, bad)
    for b in bad:
        print(b)
    return 1 if bad else 0


def self_test():
    """The rules catch what they should (a test must be able to fail)."""
    import tempfile
    table = "".join(f"| `{m}/` | x | y | {', '.join(d) or 'nothing'} |\n"
                    for m, d in DEPS.items())
    with tempfile.TemporaryDirectory() as d:
        def put(rel, text):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)

        put("docs/architecture.md",
            table.replace("| base, ir |\n| `planner/`",
                          "| base |\n| `planner/`"))
        put("ir/ir.h", "#include \"base/base.h\"\n#include <stdio.h>\n")
        put("ir/own.h", "")
        put("ir/a.c", "#include \"own.h\"\n#include \"ir/ir.h\"\n"
                      "#include \"planner/planner.h\"\n")
        put("ir/b.c", "#include \"ir/own.h\"\n#include \"../planner/x.h\"\n"
                      "#include <codegen/codegen.h>\n#include \"gone.h\"\n")
        put("codegen/c.c", "#include \"planner/plan_internal.h\"\n"
                           "  #  include \"planner/planner.h\"\n")
        put("import/d.c", "#include \"onnx.pb-c.h\"\n")
        put("planner/CMakeLists.txt", "add_library(x a.c)\n"
            "file(GLOB_RECURSE A CONFIGURE_DEPENDS *.mustache)\n")
        put("tests/CMakeLists.txt", "file(GLOB A CONFIGURE_DEPENDS */cmd)\n"
            "file(GLOB B\n     ${CMAKE_CURRENT_SOURCE_DIR}/*.c)\n")
        put("bench/x/b.c", "#include \"x.h\"\n#include \"ir/ir.h\"\n"
                           "#include \"ir/intern.h\"\n")
        put("templates/CMakeLists.txt", "set(F\n  c/a.mustache)\n")
        put("templates/c/a.mustache", "")
        put("templates/c/b.mustache", "")
        out = []
        real_print = print

        def grab(*a, **k):
            out.append(" ".join(str(x) for x in a))

        globals()["print"] = grab
        try:
            rc = main(["check_includes.py", d])
        finally:
            globals()["print"] = real_print
        want = [
            'ir/a.c:3: #include "planner/planner.h": ir/ may not include '
            'planner/ (it may include: base)',
            'ir/b.c:1: #include "ir/own.h": its own private header '
            '(write "own.h")',
            'ir/b.c:2: #include "../planner/x.h": a path with \'..\' gets '
            'around the include directories',
            'ir/b.c:3: #include <codegen/codegen.h>: use "codegen/codegen.h"',
            'ir/b.c:4: #include "gone.h": not a file of ir/',
            'codegen/c.c:1: #include "planner/plan_internal.h": planner/\'s '
            'private header',
            'bench/x/b.c:3: #include "ir/intern.h": benchmarks use public '
            'headers only',
            "docs/architecture.md:3: import/ may include base here, but "
            "tools/check_includes.py says base, ir",
            "planner/CMakeLists.txt:2: file(GLOB): list the files "
            "explicitly",
            "tests/CMakeLists.txt:2: file(GLOB): list the files "
            "explicitly",
            "templates/CMakeLists.txt:1: templates/c/b.mustache is not in "
            "PW_MUSTACHE_FILES (it would not be embedded)",
        ]
        if rc != 1 or out != want:
            print("self-test failed: rc %d, got:" % rc)
            for o in out:
                print("  " + o)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
