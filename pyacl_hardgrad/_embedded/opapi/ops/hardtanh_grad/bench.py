"""What ``python -m pyacl_hardgrad bench`` needs of aclnnHardtanhBackward (loaded by
pyacl_hardgrad/bench/runner.py from every registered folder that has a bench.py): its bench
name, the values of its scalars, its math in numpy and the PyTorch CPU calls it is compared
with (with out=, and without)."""
import numpy as np

NAME = "hardtanh"
FUNCTION = "aclnnHardtanhBackward"
SCALARS = (-1.0, 1.0)          # min, max
EXACT = True                   # numpy_op is bit-exact with the kernels


def numpy_op(g, x):
    """np.where based, fp32 compares as the kernels do."""
    xf = x.astype(np.float32, copy=False)
    keep = ((xf > np.float32(SCALARS[0])) & (xf < np.float32(SCALARS[1]))) | np.isnan(xf)
    return np.where(keep, g, np.zeros((), g.dtype))


def torch_body(torch, tg, tx, to):
    f = torch.ops.aten.hardtanh_backward.grad_input
    lo, hi = SCALARS

    def body(k):
        for _ in range(k):
            f(tg, tx, lo, hi, grad_input=to)
    return body


def torch_body_noout(torch, tg, tx):
    """The PyTorch call as users type it, without out= (a new result tensor per call)."""
    f = torch.ops.aten.hardtanh_backward
    lo, hi = SCALARS

    def body(k):
        for _ in range(k):
            f(tg, tx, lo, hi)
    return body
