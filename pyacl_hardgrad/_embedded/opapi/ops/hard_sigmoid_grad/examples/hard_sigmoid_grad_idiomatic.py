"""aclnnHardsigmoidBackward the Pythonic way: context managers, numpy in and out.

Same data and printed lines as test_aclnn_hard_sigmoid_grad.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    grad_output = np.arange(8, dtype=np.float32).reshape(4, 2)
    self = np.arange(8, dtype=np.float32).reshape(4, 2)
    with hg.Runtime(), hg.Device(0) as device, device.create_stream() as stream, \
            hg.Tensor(grad_output, device) as g, hg.Tensor(self, device) as x:
        with hg.hardsigmoid_backward(g, x, stream=stream) as out:
            result = out.numpy()          # waits for the stream
    for i, v in enumerate(result.ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
