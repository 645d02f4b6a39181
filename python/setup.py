"""Builds the unieval Python package: the pure-Python modules in unieval/ and the extension
unieval._core, compiled by the project's own CMake build (the parent directory), torch-free.

    /usr/bin/python3 -m venv --system-site-packages ~/.venvs/unieval
    ~/.venvs/unieval/bin/python -m pip install ./python --no-build-isolation

Needs the C++ build prerequisites (ci/setup: cmake, a C++17 compiler, ICU, re2, nlohmann-json,
Boost.Program_options, zlib) and pybind11-dev + python3-dev. The version is the project's
(CMakeLists.txt `project(unieval VERSION ...)`). Environment: UNIEVAL_PY_BUILD_DIR (CMake build
directory; default python/build/cmake-<python tag>), UNIEVAL_PY_JOBS (parallel jobs),
UNIEVAL_PY_PREBUILT (an already built _core*.so, e.g. build/python/unieval/_core*.so of a
configured tree: packed as is, nothing compiled; tests/install/wheel_test.sh).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


def project_version():
    cmake = ROOT / "CMakeLists.txt"
    if not cmake.exists():
        sys.exit(f"setup.py: {cmake} not found: build the package from a unieval checkout")
    m = re.search(r"project\(unieval VERSION ([0-9][0-9.]*)", cmake.read_text(encoding="utf-8"))
    if not m:
        sys.exit(f"setup.py: no `project(unieval VERSION ...)` in {cmake}")
    return m.group(1)


class CMakeBuild(build_ext):
    """Configures the parent project (metrics only: no LibTorch, no tests) and builds the
    extension's target, then puts the module where setuptools packs it."""

    def build_extension(self, ext):
        prebuilt = os.environ.get("UNIEVAL_PY_PREBUILT")
        if prebuilt:
            self.install_module(pathlib.Path(prebuilt), ext)
            return
        build_dir = pathlib.Path(os.environ.get("UNIEVAL_PY_BUILD_DIR") or
                                 HERE / "build" / f"cmake-{sys.implementation.cache_tag}")
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                "-DUNIEVAL_PYTHON=ON", "-DUNIEVAL_WITH_TORCH=OFF", "-DUNIEVAL_BUILD_TESTS=OFF",
                "-DUNIEVAL_BUILD_BENCH=OFF", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
                "-DUNIEVAL_STATIC_DEPS=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        jobs = os.environ.get("UNIEVAL_PY_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "unieval_python_core",
                               "-j", jobs])
        built = sorted((build_dir / "python" / "unieval").glob("_core*.so"))
        if not built:
            sys.exit(f"setup.py: the build left no _core*.so in {build_dir / 'python' / 'unieval'}")
        self.install_module(built[-1], ext)

    def install_module(self, built, ext):
        if not built.is_file():
            sys.exit(f"setup.py: {built} is not a file")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, dest)
        os.chmod(dest, 0o755)


setup(
    name="unieval",
    version=project_version(),
    description="Official NLG / QA / GLUE metrics reproduced number for number (sacreBLEU, "
                "rouge-score, ROUGE-1.5.5, METEOR, NIST, SQuAD, CoQA, GLUE), from C++",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8").split("\n## ")[0],
    long_description_content_type="text/markdown",
    # The extension contains the objects of unieval_meteor, the LGPL-2.1 METEOR port
    # (THIRD_PARTY_NOTICES.md, "The LGPL-2.1 component").
    license="Apache-2.0 AND LGPL-2.1-only",
    python_requires=">=3.8",
    packages=["unieval"],
    ext_modules=[Extension("unieval._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
