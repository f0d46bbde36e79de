"""Build script: cythonizes the C-level core in ext/.

SCACCO_DEBUG=1 builds with bounds checks, wraparound checks and C asserts switched on, for
running the test suite against memory errors.  SCACCO_PORTABLE=1 leaves out -march=native
(for binaries that move to another machine).
"""
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("SCACCO_DEBUG", "") not in ("", "0")
PORTABLE = os.environ.get("SCACCO_PORTABLE", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": DEBUG,
}

if sys.platform == "win32":
    compile_args = ["/O2"]
else:
    compile_args = ["-O3", "-fno-strict-aliasing", "-Wno-unused-function", "-Wno-maybe-uninitialized"]
    if DEBUG:
        compile_args = ["-O1", "-g", "-Wno-unused-function"]
    elif not PORTABLE:
        compile_args.append("-march=native")

macros = [] if DEBUG else [("NDEBUG", "1")]

extensions = [
    Extension(
        "ext._core",
        ["ext/_core.pyx"],
        extra_compile_args=compile_args,
        define_macros=macros,
        depends=[os.path.join("ext", name) for name in os.listdir("ext") if name.endswith(".pxi")],
    )
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False,
                          build_dir="build/cython-debug" if DEBUG else "build/cython"),
)
