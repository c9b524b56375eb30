"""Build: the embedded runtime's three C libraries, the headers, and the cffi binding.

``pip install .`` compiles libascendcl.so, libnnopbase.so and libopapi.so into the
CANN-shaped tree ``pyacl_hardgrad/_cann/`` (lib64/, include/, set_env.sh, version files) and builds
the compiled cffi module ``pyacl_hardgrad._cffi_acl`` whose declarations come from include/, and
``pyacl_hardgrad._fastcall`` (the vectorcall entry points of the hot calls).
"""
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "pyacl_hardgrad" / "_build"))
import cann_tree  # noqa: E402  (build helpers, standard library only)
import embedded_libs  # noqa: E402


class BuildWithEmbeddedRuntime(build_ext):
    """build_ext that first builds the embedded runtime and installs the headers."""

    def run(self):
        pkg = Path(self.build_lib) / "pyacl_hardgrad"
        targets = [pkg]
        if self.inplace:
            targets = [ROOT / "pyacl_hardgrad"]
        for dest in targets:
            # the libraries and headers live in the CANN-shaped tree (_cann/lib64, _cann/include)
            embedded_libs.build(cann_tree.lib_dir(dest / "_cann"), verbose=self.verbose > 1)
            cann_tree.finish(dest / "_cann", ROOT / "include")
            # Each registered operator's examples, docs, op.json and bench.py (and the registry), so
            # `python -m pyacl_hardgrad samples` and the Python layer find them after install.
            ops = dest / "_embedded" / "opapi" / "ops"
            if ops.resolve() == embedded_libs.OPS_DIR.resolve():
                continue                 # in place (pip install -e): the sources are already there
            ops.mkdir(parents=True, exist_ok=True)
            shutil.copy2(embedded_libs.REGISTRY, ops / embedded_libs.REGISTRY.name)
            for src in embedded_libs.operator_dirs():
                for sub in ("examples", "docs"):
                    if (src / sub).is_dir():
                        if (ops / src.name / sub).exists():
                            shutil.rmtree(ops / src.name / sub)
                        shutil.copytree(src / sub, ops / src.name / sub)
                for name in ("op.json", "bench.py"):      # bench.py: what the bench needs of it
                    if (src / name).is_file():
                        shutil.copy2(src / name, ops / src.name / name)
        super().run()


setup(
    packages=["pyacl_hardgrad", "pyacl_hardgrad._build", "pyacl_hardgrad._binding_c", "pyacl_hardgrad.bench",
              "pyacl_hardgrad.acl", "pyacl_hardgrad.acl._path"],  # _path: the `import acl` shim (--pyacl-path)
    package_data={"pyacl_hardgrad": ["py.typed", "*.pyi"],        # typed (PEP 561): marker, stubs of
                  # the compiled modules and of the generated operator functions (_ops_typing.pyi)
                  "pyacl_hardgrad.bench": ["cpp_loop.cpp"],       # compiled by `bench` at run time
                  "pyacl_hardgrad._binding_c": ["*.c", "*.h"]},   # the binding's C sources, as shipped
    cffi_modules=["pyacl_hardgrad/_build/ffi_build.py:ffibuilder",
                  "pyacl_hardgrad/_build/ffi_build_hccl.py:ffibuilder"],   # HCCL's, bound on first use
    # vectorcall entry points for calls whose cost is the call itself (plan runs, one-calls,
    # tensors made and let go of)
    ext_modules=[Extension("pyacl_hardgrad._fastcall", ["pyacl_hardgrad/_binding_c/fastcall.c",
                                                        "pyacl_hardgrad/_binding_c/fastcall_tensor.c",
                                                        "pyacl_hardgrad/_binding_c/dlpack.c",
                                                        "pyacl_hardgrad/_binding_c/check_sites.c"],
                           depends=["pyacl_hardgrad/_binding_c/fastcall.h"],
                           extra_compile_args=["-std=c11", "-Wall", "-Wextra"])],
    cmdclass={"build_ext": BuildWithEmbeddedRuntime},
)
