"""pyacl_hardgrad: CANN's C API and the aclnn Hardtanh/Hardsigmoid backward operators from Python."""
from ._paths import get_include, get_library_dir

__version__ = "0.1.0"
__all__ = ["get_include", "get_library_dir", "__version__"]
