"""aclnnHardtanhBackward the Pythonic way: context managers, numpy in and out.

Same data and printed lines as test_aclnn_hardtanh_grad.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    grad_output = np.arange(8, dtype=np.float32).reshape(4, 2)
    self = np.array([1, 1, 1, 2, 1, 2, 3, 3], dtype=np.float32).reshape(4, 2)
    with hg.Runtime(), hg.Device(0) as device, device.create_stream() as stream, \
            hg.Tensor(grad_output, device) as g, hg.Tensor(self, device) as x, \
            hg.HardtanhBackwardPlan(g, x, 1.2, 2.4) as plan, plan.out as out:
        # plan.workspace_size is 0 here; run() would allocate a workspace otherwise.
        plan.run(stream=stream)
        stream.synchronize()
        result = out.numpy()
    for i, v in enumerate(result.ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
