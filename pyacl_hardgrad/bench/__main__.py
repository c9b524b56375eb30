"""``python -m pyacl_hardgrad.bench`` (same as ``python -m pyacl_hardgrad bench``)."""
from . import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m pyacl_hardgrad.bench"))
