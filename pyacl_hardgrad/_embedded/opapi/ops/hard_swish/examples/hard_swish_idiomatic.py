"""aclnnHardswish and aclnnInplaceHardswish the Pythonic way, through the generic operator call.

Same data and printed lines as test_aclnn_hardswish.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    self = np.array([-4, -3, -2, 0, 1, 2, 4, 5], dtype=np.float32).reshape(4, 2)
    for i, v in enumerate(np.asarray(hg.hardswish(self)).ravel()):
        print("result[%d] is: %f" % (i, v))
    print("\ntest aclnnInplaceHardswish")
    with hg.Device(0) as device, hg.Tensor(self, device) as t:
        hg.inplace_hardswish(t)
        for i, v in enumerate(t.numpy().ravel()):
            print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
