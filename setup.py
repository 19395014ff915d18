"""Build of the collio Python extension (python/collio/_collio.c).

Compiler: $CC if set, else $MPICC, else `mpicc` -- the system MPI's compiler
wrapper, which must be the MPI that mpi4py runs on (Debian's
python3-mpi4py and, on Debian, the PyPI mpi4py wheel: Open MPI, the default
`mpicc`). The import checks it (collio/_collio.c, check_mpi_abi).

mpi4py: its C API header (mpi4py.get_include()); a build requirement of
pyproject.toml, so `pip install .` in a fresh virtual environment (with
build isolation) gets it from the package index.

libcollio, the first of:
  1. $COLLIO_BUILD_DIR: a CMake build directory of this repository
     (libcollio.a there, include/ of the repository);
  2. $COLLIO_PREFIX: an installation (cmake --install): PREFIX/include,
     PREFIX/lib or lib64 (libcollio.a, or libcollio.so with an rpath);
  3. `pkg-config collio` (an installation on PKG_CONFIG_PATH);
  4. build/ of this repository if it holds libcollio.a;
  5. else the library's sources (src/) compiled into the extension.
libcollio.a must be position-independent (CMakeLists.txt builds it so).
"""
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))


def say(msg):
    print("collio setup: " + msg, file=sys.stderr)


if "CC" not in os.environ:
    os.environ["CC"] = os.environ.get("MPICC", "mpicc")
_cc = shlex.split(os.environ["CC"])[:1]
if not _cc or shutil.which(_cc[0]) is None:
    sys.exit("collio setup: no C compiler %r: the extension is compiled with the "
             "system MPI's compiler wrapper -- install an MPI's development package "
             "(Debian: libopenmpi-dev) or set MPICC / CC" % (os.environ["CC"],))

try:
    import mpi4py
except ImportError:  # pragma: no cover
    sys.exit("collio setup: mpi4py is needed to build (its C API header): it is a "
             "build requirement of pyproject.toml; without build isolation "
             "(--no-build-isolation) install it first")

include_dirs = [mpi4py.get_include()]
library_dirs, libraries, extra_objects, sources = [], [], [], ["python/collio/_collio.c"]
extra_link_args, define_macros = [], []


def private_libs(pc_file):
    """Libs.private of a collio.pc (HDF5 where libcollio has it): what a
    static libcollio.a needs beside it. Static archives (glibc's empty
    libpthread.a / libdl.a) are left out."""
    if not os.path.exists(pc_file):
        return
    for line in open(pc_file):
        if line.startswith("Libs.private:"):
            for tok in shlex.split(line.split(":", 1)[1]):
                if tok.startswith("-l"):
                    libraries.append(tok[2:])
                elif tok.startswith("-L"):
                    library_dirs.append(tok[2:])
                elif not tok.endswith(".a"):
                    extra_link_args.append(tok)


def lib_in(d):
    for name in ("libcollio.so", "libcollio.a"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


build_dir = os.environ.get("COLLIO_BUILD_DIR")
prefix = os.environ.get("COLLIO_PREFIX")
default_build = os.path.join(here, "build")
if build_dir and lib_in(build_dir):
    lib = lib_in(build_dir)
    say("libcollio of the build directory " + lib)
    include_dirs.append(os.path.join(here, "include"))
    if lib.endswith(".a"):
        extra_objects.append(lib)
        private_libs(os.path.join(build_dir, "collio.pc"))
    else:
        library_dirs.append(build_dir)
        libraries.append("collio")
        extra_link_args.append("-Wl,-rpath," + build_dir)
elif prefix:
    include_dirs.append(os.path.join(prefix, "include"))
    libdir = next((d for d in (os.path.join(prefix, "lib"), os.path.join(prefix, "lib64"))
                   if lib_in(d)), None)
    if libdir is None:
        sys.exit("collio setup: no libcollio under %s/lib or lib64" % prefix)
    say("libcollio of the installation " + prefix)
    library_dirs.append(libdir)
    libraries.append("collio")
    private_libs(os.path.join(libdir, "pkgconfig", "collio.pc"))
    extra_link_args.append("-Wl,-rpath," + libdir)
else:
    pc = None
    try:
        pc = subprocess.run(["pkg-config", "--static", "--cflags", "--libs", "collio"],
                            capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pass
    if pc:
        say("libcollio from pkg-config: " + pc.strip())
        for tok in shlex.split(pc):
            if tok.startswith("-I"):
                include_dirs.append(tok[2:])
            elif tok.startswith("-L"):
                library_dirs.append(tok[2:])
                extra_link_args.append("-Wl,-rpath," + tok[2:])
            elif tok.startswith("-l"):
                libraries.append(tok[2:])
            elif tok.endswith(".so"):
                extra_link_args.append(tok)
    elif lib_in(default_build) and lib_in(default_build).endswith(".a"):
        say("libcollio of the build directory " + default_build)
        include_dirs.append(os.path.join(here, "include"))
        extra_objects.append(lib_in(default_build))
        private_libs(os.path.join(default_build, "collio.pc"))
    else:
        say("no libcollio found: compiling its sources (src/) into the extension")
        srcs = sorted(glob.glob("src/**/*.c", recursive=True))
        if not srcs:
            sys.exit("collio setup: no libcollio and no sources; set COLLIO_PREFIX")
        sources += srcs
        include_dirs += [os.path.join(here, "include"), os.path.join(here, "src")]
        define_macros.append(("_GNU_SOURCE", None))
        # json-c where pkg-config finds it: strategy auto's calibration file
        try:
            jc = subprocess.run(["pkg-config", "--cflags", "--libs", "json-c"],
                                capture_output=True, text=True, check=True).stdout
            define_macros.append(("COLLIO_HAVE_JSONC", None))
            for tok in shlex.split(jc):
                if tok.startswith("-I"):
                    include_dirs.append(tok[2:])
                elif tok.startswith("-l"):
                    libraries.append(tok[2:])
        except (OSError, subprocess.CalledProcessError):
            say("no json-c: strategy auto uses its built-in constants only")

ext = Extension(
    "collio._collio",
    sources=sources,
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    libraries=libraries + ["m"],
    extra_objects=extra_objects,
    # setuptools relinks only when a source or one of these is newer than
    # the extension: libcollio.a must be one, or a rebuilt library would
    # never reach an installed extension
    depends=list(extra_objects) + [os.path.join(here, "include", "collio.h")],
    extra_compile_args=["-std=c11", "-O3", "-Wall", "-Wextra"],
    extra_link_args=extra_link_args,
    define_macros=define_macros,
)

# Intermediate files apart from the CMake build in build/, one directory
# per compiler and mpi4py version: the extension compiled against one
# mpi4py's header (pip's isolated build environment: the newest mpi4py)
# must not be reused for another (an environment with Debian's mpi4py),
# whose C API differs.
key = hashlib.sha1(("%s|%s" % (os.environ["CC"], mpi4py.__version__)).encode()).hexdigest()
build_base = os.path.join(build_dir or default_build, "python-build",
                          "mpi4py-%s-%s" % (mpi4py.__version__, key[:8]))
setup(ext_modules=[ext], options={"build": {"build_base": build_base}})
