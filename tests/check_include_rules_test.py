#!/usr/bin/env python3
"""The include-rule check (scripts/check_include_rules.py) fails on each kind of forbidden include.

    tests/check_include_rules_test.py SOURCE_DIR

Copies the sources of core/, kernels/, ui/ and app/ into a scratch folder, checks that the copy passes, then plants
one violation at a time (an #include line appended to a real file, or a stray file) and expects exit 1 with a line
that names the planted file and the rule. Prints 'N passed, N failed'.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".inc")


def first_file(root, folder, suffix=".cpp"):
    names = sorted(n for n in os.listdir(os.path.join(root, folder)) if n.endswith(suffix))
    if not names:
        raise SystemExit(f"no {suffix} file in {folder}")
    return f"{folder}/{names[0]}"


def main():
    source = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    checker = os.path.join(source, "scripts", "check_include_rules.py")
    scratch = tempfile.mkdtemp(prefix="include-rules-")
    try:
        for top in ("core", "kernels", "ui", "app"):
            for folder, _, names in os.walk(os.path.join(source, top)):
                for name in names:
                    if name.endswith(SUFFIXES):
                        relative = os.path.relpath(os.path.join(folder, name), source)
                        os.makedirs(os.path.join(scratch, os.path.dirname(relative)), exist_ok=True)
                        shutil.copy(os.path.join(source, relative), os.path.join(scratch, relative))

        def run():
            done = subprocess.run([sys.executable, checker, "--root", scratch], capture_output=True, text=True)
            return done.returncode, done.stdout + done.stderr

        page = first_file(scratch, "ui/pages")
        other_page = [p for p in sorted(os.listdir(os.path.join(scratch, "ui/pages"))) if p.endswith(".hpp")
                      and p.split(".")[0] != os.path.basename(page).split(".")[0]][0]
        model = first_file(scratch, "ui/models")
        document = first_file(scratch, "ui/documents")
        # (what, file to plant in, line to append or None for a new file, text the failure must contain)
        plants = [
            ("gemm includes sweep", "core/src/gemm/gemm_explorer.cpp", '#include "tunescope/sweep/results.hpp"',
             "gemm may include only"),
            ("formats includes gemm", "core/src/formats/report.cpp", '#include "tunescope/gemm/gemm_algo.hpp"',
             "formats may include only"),
            ("sweep includes gemm", "core/include/tunescope/sweep/results.hpp",
             '#include "tunescope/gemm/gemm_spec.hpp"', "sweep may include only"),
            ("base includes device", "core/include/tunescope/base/json_io.hpp",
             '#include "tunescope/device/device.hpp"', "base may include only"),
            ("device includes formats", "core/src/device/measurement.cpp",
             '#include "tunescope/formats/profile.hpp"', "device may include only"),
            ("a private header from another area", "core/src/sweep/results.cpp",
             '#include "../formats/profile_internal.hpp"', "private"),
            ("a public header includes a private one", "core/include/tunescope/formats/profile.hpp",
             '#include "profile_internal.hpp"', "private"),
            ("core includes kernels", "core/src/device/cpu_backend.cpp",
             '#include "../../../kernels/common/l2norm_kernel.inc"', "never includes kernels/"),
            ("a core header without its area", "core/src/sweep/promote.cpp", '#include "tunescope/profile.hpp"',
             "tunescope/<area>/x.hpp"),
            ("a core file outside an area", "core/src/stray.cpp", None, "outside an area folder"),
            ("a kernel includes formats", "kernels/cuda/l2norm/cuda_backend.cpp",
             '#include "tunescope/formats/profile.hpp"', "kernels include only"),
            ("the plugin ABI includes the explorer", "core/include/tunescope/gemm/gemm_backend.hpp",
             '#include "tunescope/gemm/gemm_explorer.hpp"', "through core/include/tunescope/gemm/gemm_backend.hpp"),
            ("a model includes a page", model, f'#include "pages/{other_page}"', "models/ may include only"),
            ("a page includes another page", page, f'#include "pages/{other_page}"', "another page"),
            ("a document includes a model", document, '#include "models/' + os.path.basename(model).replace(".cpp", ".hpp") + '"',
             "documents/ may include only"),
            ("a ui include without its folder", page, '#include "' + other_page + '"', "with their folder"),
            ("a ui file outside an area", "ui/stray.cpp", None, "outside an area folder"),
            ("the CLI includes the GUI", "app/cli/main.cpp", '#include "../../ui/mainwindow.hpp"', "the CLI includes"),
        ]
        passed, failed = 0, 0
        code, output = run()
        if code == 0:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: the unchanged tree does not pass:\n{output}")
        for what, path, line, expected in plants:
            target = os.path.join(scratch, path)
            original = open(target).read() if os.path.exists(target) else None
            with open(target, "w") as handle:
                handle.write((original or "") + (line + "\n" if line else "int stray;\n"))
            code, output = run()
            if original is None:
                os.remove(target)
            else:
                with open(target, "w") as handle:
                    handle.write(original)
            hit = [l for l in output.splitlines() if l.startswith(path) and expected in l]
            if code == 1 and hit:
                passed += 1
                print(f"ok: {what}: {hit[0]}")
            else:
                failed += 1
                print(f"FAIL: {what}: exit {code}, no line naming {path} with '{expected}':\n{output}")
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
