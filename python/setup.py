"""setup.py — `pip install ./python`: the npusim package with the C library it
calls (build/libnpusim.so, built here with make) and the shipped configs,
copied into the package. Needs setuptools alone, any of them: Debian's
python3-setuptools (`pip install --no-build-isolation ./python`), or the one
pip fetches for an isolated build from pyproject.toml (a python.org, pyenv or
conda Python: `pip install ./python`); plus a C toolchain with the -dev
packages of the README's first command. Only the standard library and
setuptools are imported here. NPUSIM_BUILD names another build folder than
build/ (make BUILD=...), relative to the source tree or absolute."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("NPUSIM_BUILD") or "build"


class BuildWithLibrary(build_py):
    """Builds libnpusim.so with the project's Makefile and puts it, and the
    configs, beside the Python code."""

    def run(self):
        super().run()
        lib = os.path.join(BUILD, "libnpusim.so")   # relative to ROOT, as make sees it, or absolute
        subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "BUILD=" + BUILD, lib])
        dest = os.path.join(self.build_lib, "npusim")
        shutil.copy(os.path.join(ROOT, lib), dest)
        shutil.copytree(os.path.join(ROOT, "configs"), os.path.join(dest, "configs"), dirs_exist_ok=True)


class BinaryDistribution(Distribution):
    """The package carries a compiled library: a platform wheel."""

    def has_ext_modules(self):
        return True


setup(
    name="npusim",
    version="0.2.0",
    description="A trace-driven simulator of NPUs, TPUs and GPUs running LLMs and other models",
    packages=["npusim"],
    python_requires=">=3.9",
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
)
