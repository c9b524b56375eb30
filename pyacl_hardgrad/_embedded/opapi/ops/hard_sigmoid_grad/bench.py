"""What ``python -m pyacl_hardgrad bench`` needs of aclnnHardsigmoidBackward (loaded by
pyacl_hardgrad/bench/runner.py from every registered folder that has a bench.py): its bench
name, its math in numpy and the PyTorch CPU calls it is compared with (with out=, and without)."""
import numpy as np

NAME = "hardsigmoid"
FUNCTION = "aclnnHardsigmoidBackward"
SCALARS = ()
EXACT = False                  # numpy_op rounds differently in fp16/bf16: compared with a tolerance


def numpy_op(g, x):
    xf = x.astype(np.float32, copy=False)
    t = xf * np.float32(1.0 / 6.0)
    t += np.float32(0.5)
    r = g.astype(np.float32) * np.float32(1.0 / 6.0)
    return np.where((t > 0) & (t < 1), r, np.float32(0)).astype(g.dtype)


def torch_body(torch, tg, tx, to):
    f = torch.ops.aten.hardsigmoid_backward.grad_input

    def body(k):
        for _ in range(k):
            f(tg, tx, grad_input=to)
    return body


def torch_body_noout(torch, tg, tx):
    """The PyTorch call as users type it, without out= (a new result tensor per call)."""
    f = torch.ops.aten.hardsigmoid_backward

    def body(k):
        for _ in range(k):
            f(tg, tx)
    return body
