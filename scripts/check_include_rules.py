#!/usr/bin/env python3
"""Checks the include rule of docs/architecture.md over the #include lines of core/, kernels/, ui/ and app/.

    scripts/check_include_rules.py [--root DIR]

Exit 0 when every rule holds; 1 with one line per violation (file:line: the include, and the rule it breaks).
Only quoted includes are read: angle-bracket ones are outside libraries (Qt, nlohmann, CUDA). The rules:

core/      base <- device <- formats <- sweep, and device <- gemm: an area includes only its own headers and those
           of the areas before it; gemm and formats/sweep never include each other. Public headers are included as
           "tunescope/<area>/x.hpp". A private header (in core/src/<area>/) is included only from its own folder,
           and never from a public header. Every core file sits in an area folder. Core never includes kernels/.
kernels/   only core's base/ and device/ headers (all of what they include too); the cuBLASLt plugin
           (kernels/cuda/cublaslt/) also the GEMM plugin ABI: gemm/gemm_backend.hpp, gemm_algo.hpp, gemm_spec.hpp.
ui/        folders documents/ (core only), models/, widgets/, plots/, pages/, and the shell at the top (SHELL below).
           documents include core and documents; models also documents' neighbours models; widgets and plots also
           models (plots also widgets); pages everything but another page; the shell anything. ui includes are
           written with their folder: "models/x.hpp".
app/cli/   core only (no ui/).
"""
import argparse
import os
import re
import sys

CORE_AREAS = {
    "base": {"base"},
    "device": {"base", "device"},
    "formats": {"base", "device", "formats"},
    "sweep": {"base", "device", "formats", "sweep"},
    "gemm": {"base", "device", "gemm"},
}
GEMM_PLUGIN_ABI = {"gemm/gemm_backend.hpp", "gemm/gemm_algo.hpp", "gemm/gemm_spec.hpp"}
UI_AREAS = {
    "documents": {"documents"},
    "models": {"documents", "models"},
    "widgets": {"documents", "models", "widgets"},
    "plots": {"documents", "models", "widgets", "plots"},
    "pages": {"documents", "models", "widgets", "plots", "pages"},  # pages: only the page's own header
}
# The window shell: the files that may stay at the top of ui/ (and include anything in ui/).
SHELL = {"mainwindow", "signingactions", "screenshots", "apppaths"}
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root, top):
    base = os.path.join(root, top)
    for folder, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1)


def stem(path):
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


class Checker:
    def __init__(self, root):
        self.root = root
        self.violations = []

    def fail(self, path, line, included, why):
        self.violations.append(f'{path}:{line}: #include "{included}": {why}')

    def exists(self, path):
        return os.path.isfile(os.path.join(self.root, path))

    # --- core -----------------------------------------------------------------------------------------------
    def core_area(self, path):
        parts = path.split("/")
        if parts[:3] == ["core", "include", "tunescope"] and len(parts) == 5 and parts[3] in CORE_AREAS:
            return parts[3], True
        if parts[:2] == ["core", "src"] and len(parts) == 4 and parts[2] in CORE_AREAS:
            return parts[2], False
        return None, None

    def check_core(self):
        for path in sources(self.root, "core"):
            area, public = self.core_area(path)
            if area is None:
                self.fail(path, 0, "-", "a core file outside an area folder (core/src/<area>/, "
                          "core/include/tunescope/<area>/)")
                continue
            folder = path.rsplit("/", 1)[0]
            for line, included in includes(self.root, path):
                if included.startswith("tunescope/"):
                    parts = included.split("/")
                    target = parts[1] if len(parts) == 3 else None
                    if target not in CORE_AREAS:
                        self.fail(path, line, included, "core headers are included as tunescope/<area>/x.hpp")
                    elif not self.exists("core/include/" + included):
                        self.fail(path, line, included, "no such core header")
                    elif target not in CORE_AREAS[area]:
                        self.fail(path, line, included, f"{area} may include only {sorted(CORE_AREAS[area])}")
                    elif (path.startswith("core/include/tunescope/") and path[len("core/include/tunescope/"):]
                          in GEMM_PLUGIN_ABI and target == "gemm" and "/".join(parts[1:]) not in GEMM_PLUGIN_ABI):
                        self.fail(path, line, included, "the GEMM plugin ABI includes no explorer header: the "
                                  f"cuBLASLt plugin would reach it through {path}")
                elif "kernels/" in included:
                    self.fail(path, line, included, "core never includes kernels/")
                elif "/" in included or not self.exists(folder + "/" + included):
                    self.fail(path, line, included, "core includes only core headers; a private header is "
                              "included only from its own area's folder (by its bare name)")
                elif public:
                    self.fail(path, line, included, "a public header never includes a private one")

    # --- kernels --------------------------------------------------------------------------------------------
    def kernel_local(self, path, included):
        """A kernels/ header found through the folder or the plugins' include paths, or None."""
        candidates = [path.rsplit("/", 1)[0] + "/" + included, "kernels/common/" + included,
                      "kernels/cuda/nvml/" + included, "kernels/cuda/cupti/" + included,
                      "kernels/cuda/l2norm/" + included]
        for candidate in candidates:
            if self.exists(os.path.normpath(candidate).replace(os.sep, "/")):
                return os.path.normpath(candidate).replace(os.sep, "/")
        return None

    def check_kernels(self):
        for path in sources(self.root, "kernels"):
            allowed_gemm = path.startswith("kernels/cuda/cublaslt/")
            # Follow core headers transitively: what a kernel reaches through a device header counts too.
            pending, seen = [(path, path)], set()
            while pending:
                origin, current = pending.pop()
                if current in seen:
                    continue
                seen.add(current)
                for line, included in includes(self.root, current):
                    where = f"{path} (through {current})" if current != path else path
                    if included.startswith("tunescope/"):
                        relative = included[len("tunescope/"):]
                        area = relative.split("/")[0]
                        ok = area in ("base", "device") or (allowed_gemm and relative in GEMM_PLUGIN_ABI)
                        if not ok:
                            self.fail(where, line, included, "kernels include only core's base/ and device/ headers "
                                      "(the cuBLASLt plugin also the GEMM ABI: " + ", ".join(sorted(GEMM_PLUGIN_ABI)) + ")")
                        elif self.exists("core/include/" + included):
                            pending.append((origin, "core/include/" + included))
                    elif current.startswith("kernels/"):
                        local = self.kernel_local(current, included)
                        if local is None:
                            self.fail(where, line, included, "kernels include kernels/ files and core's public headers only")
                        else:
                            pending.append((origin, local))

    # --- ui -------------------------------------------------------------------------------------------------
    def check_ui(self):
        for path in sources(self.root, "ui"):
            parts = path.split("/")
            if len(parts) == 2:
                area = None
                if stem(path) not in SHELL:
                    self.fail(path, 0, "-", "a ui file outside an area folder that is not the window shell "
                              f"({', '.join(sorted(SHELL))})")
                    continue
            elif len(parts) == 3 and parts[1] in UI_AREAS:
                area = parts[1]
            else:
                self.fail(path, 0, "-", f"ui files sit in {sorted(UI_AREAS)} or are the shell")
                continue
            for line, included in includes(self.root, path):
                if included.startswith("tunescope/") or included.endswith(".moc"):
                    continue
                if not self.exists("ui/" + included):
                    self.fail(path, line, included, 'ui headers are included with their folder ("models/x.hpp")')
                    continue
                target_parts = included.split("/")
                target = target_parts[0] if len(target_parts) == 2 else None
                if area is None:
                    continue
                if target is None:
                    self.fail(path, line, included, f"{area}/ never includes the window shell")
                elif target not in UI_AREAS[area]:
                    self.fail(path, line, included, f"{area}/ may include only {sorted(UI_AREAS[area])} and core")
                elif area == "pages" and target == "pages" and stem(included) != stem(path):
                    self.fail(path, line, included, "a page never includes another page")

    # --- app ------------------------------------------------------------------------------------------------
    def check_app(self):
        for path in sources(self.root, "app/cli"):
            for line, included in includes(self.root, path):
                if not included.startswith("tunescope/") and (".." in included or
                                                               not self.exists("app/cli/" + included)):
                    self.fail(path, line, included, "the CLI includes core headers and its own files only")

    def run(self):
        self.check_core()
        self.check_kernels()
        self.check_ui()
        self.check_app()
        return self.violations


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    for top in ("core", "kernels", "ui", "app"):
        if not os.path.isdir(os.path.join(root, top)):
            print(f"check_include_rules: {root} has no {top}/ folder", file=sys.stderr)
            return 2
    violations = Checker(root).run()
    for violation in violations:
        print(violation)
    if violations:
        print(f"include rules: {len(violations)} violation(s) (docs/architecture.md)")
        return 1
    print("include rules: all hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
