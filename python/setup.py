"""setup.py — `pip install --no-build-isolation ./python`: the npusim package
with the C library it calls (build/libnpusim.so, built here with make) and the
shipped configs, copied into the package. Needs only Debian's python3-setuptools
(and a C toolchain with the -dev packages of the README's first command)."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BuildWithLibrary(build_py):
    """Builds libnpusim.so with the project's Makefile and puts it, and the
    configs, beside the Python code."""

    def run(self):
        super().run()
        subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/libnpusim.so"])
        dest = os.path.join(self.build_lib, "npusim")
        shutil.copy(os.path.join(ROOT, "build", "libnpusim.so"), dest)
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
