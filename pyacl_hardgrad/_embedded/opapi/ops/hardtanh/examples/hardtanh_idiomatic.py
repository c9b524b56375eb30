"""aclnnHardtanh the Pythonic way: numpy in, numpy out, through the generic operator call.

Same data and printed lines as test_aclnn_hardtanh.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    self = np.arange(8, dtype=np.float32).reshape(4, 2)
    result = hg.hardtanh(self, 1.2, 2.4)
    for i, v in enumerate(np.asarray(result).ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
