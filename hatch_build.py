"""Hatchling build hook: compile the optional C parts: the core of the normalizer
(claimledger/_cnormalize.c), the seed search of the near-miss search (claimledger/_cseeds.c), its
alignment (claimledger/_cnear.c) and the skeleton of UTF-8 bytes (claimledger/_cutf8skel.c).

The compiler is driven by setuptools' ``build_ext`` (the same detection of the compiler, flags and
extension suffix as any setuptools project) with ``Extension(optional=True)``: when there is no C
compiler or no Python headers, the build prints a warning and the package installs without the
extension, and claimledger runs its pure-Python path (each extension is optional on its own). ``CLAIMLEDGER_PURE_PYTHON=1`` at build
time skips the compilation.

* ``pip install .`` / wheels: the extension is built in a temporary directory and added to the
  wheel, which is then tagged for this interpreter and platform.
* ``pip install -e .``: the extension is built in place, next to the C file (the editable install
  imports the package from the source tree); it is ignored by git.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSIONS = {  # module name -> C source
    "claimledger._cnormalize": "claimledger/_cnormalize.c",
    "claimledger._cseeds": "claimledger/_cseeds.c",
    "claimledger._cnear": "claimledger/_cnear.c",
    "claimledger._cutf8skel": "claimledger/_cutf8skel.c",
}
EXT_NAME = "claimledger._cnormalize"  # the normalizer core: its absence is reported


def _compile(root: Path, build_lib: Path, build_temp: Path, inplace: bool) -> list[Path]:
    """Build the extensions; the paths of those that were built (an optional build may fail)."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    exts = [Extension(name, [source], optional=True) for name, source in EXTENSIONS.items()]
    dist = Distribution({"name": "claimledger", "ext_modules": exts, "script_name": "hatch_build.py"})
    cmd = build_ext(dist)
    cmd.inplace = inplace
    cmd.build_lib = str(build_lib)
    cmd.build_temp = str(build_temp)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        cmd.ensure_finalized()
        cmd.run()
        paths = [Path(cmd.get_ext_fullpath(name)) for name in EXTENSIONS]
    finally:
        os.chdir(cwd)
    paths = [p if p.is_absolute() else root / p for p in paths]
    return [p for p in paths if p.is_file()]


class CCoreBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() not in ("", "0"):
            self.app.display_info("claimledger: CLAIMLEDGER_PURE_PYTHON is set, the C core is not built")
            return
        root = Path(self.root)
        inplace = version == "editable"
        tmp = Path(tempfile.mkdtemp(prefix="claimledger-build-"))
        self._tmp = tmp
        try:
            built = _compile(root, tmp / "lib", tmp / "temp", inplace)
        except Exception as exc:  # an optional part: any failure leaves the pure-Python path
            print(f"claimledger: the C core was not built ({type(exc).__name__}: {exc}); "
                  "the pure-Python normalizer will be used", file=sys.stderr)  # fmt: skip
            return
        if not any(p.name.startswith(EXT_NAME.split(".")[-1] + ".") for p in built):
            print("claimledger: the C core was not built (see the compiler output above); "
                  "the pure-Python normalizer will be used", file=sys.stderr)  # fmt: skip
        if not built:
            return
        for path in built:
            self.app.display_info(f"claimledger: built {path.name}")
            if not inplace:
                build_data["force_include"][str(path)] = f"claimledger/{path.name}"
        if not inplace:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
