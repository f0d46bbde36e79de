"""Build script: cythonizes the C-level core in ext/ into the extension scacco.ext._core.

By default the build is portable: no CPU-specific flags, so a wheel runs on any machine of
its architecture.  SCACCO_NATIVE=1 tunes the build for the CPU that compiles it
(-march=native): faster here, but the result may crash with an illegal instruction
elsewhere, so never use it for wheels that are handed out.  SCACCO_DEBUG=1 builds with bounds
checks, wraparound checks and C asserts switched on, for running the test suite against
memory errors.  SCACCO_TUNING=1 makes the evaluation weights writable
(set_eval_parameter) for bench/eval_fit.py; build it in a virtual environment of its own.
"""
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("SCACCO_DEBUG", "") not in ("", "0")
NATIVE = os.environ.get("SCACCO_NATIVE", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": DEBUG,
}

link_args = []
if sys.platform == "win32":
    compile_args = ["/O2"]
else:
    # threads.pxi starts POSIX threads (part of libc on recent glibc, not everywhere).
    link_args = ["-pthread"]
    # -fno-wrapv undoes the -fwrapv of Python's own CFLAGS (which come first on gcc's command
    # line): CPython's C relies on signed overflow wrapping, the core does not (its hashes and
    # masks are unsigned), and -fwrapv keeps gcc from simplifying the core's signed index and
    # loop arithmetic.  The search is the same node for node (bench signature) either way.
    compile_args = ["-O3", "-fno-strict-aliasing", "-fno-wrapv", "-Wno-unused-function",
                    "-Wno-maybe-uninitialized"]
    if DEBUG:
        # Python's own CFLAGS carry -DNDEBUG; -UNDEBUG after them switches C asserts back on.
        compile_args = ["-O1", "-g", "-UNDEBUG", "-Wno-unused-function"]
    elif NATIVE:
        compile_args.append("-march=native")
    compile_args.append("-pthread")

TUNING = os.environ.get("SCACCO_TUNING", "") not in ("", "0")
macros = [] if DEBUG else [("NDEBUG", "1")]
if TUNING:
    # Evaluation weights writable from Python (bench/eval_fit.py); never for play.
    macros.append(("SCACCO_TUNING", "1"))

extensions = [
    Extension(
        "scacco.ext._core",
        ["ext/_core.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=macros,
        depends=[os.path.join("ext", name) for name in os.listdir("ext") if name.endswith(".pxi")],
    )
]

# Each flavour keeps its own build tree, and --inplace always copies that flavour's library
# into ext/.  With one shared tree a normal rebuild right after a debug build found the debug
# library newer than its C source, skipped compiling, and setuptools' copy (which skips
# targets newer than their source) left the debug (-O1, bounds-checked) library in place.
FLAVOUR = "debug" if DEBUG else "native" if NATIVE else "release"
BUILD_BASE = os.path.join("build", FLAVOUR + ("-tuning" if TUNING else ""))


class BuildExt(build_ext):
    def copy_extensions_to_source(self):
        force, self.force = self.force, True
        try:
            super().copy_extensions_to_source()
        finally:
            self.force = force


setup(
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False,
                          build_dir=os.path.join(BUILD_BASE, "cython")),
    options={"build": {"build_base": BUILD_BASE}},
    cmdclass={"build_ext": BuildExt},
)
