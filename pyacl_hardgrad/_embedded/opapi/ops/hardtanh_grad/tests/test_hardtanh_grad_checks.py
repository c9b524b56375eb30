"""aclnnHardtanhBackward's phase-1 checks (CANN's order, codes and messages), views and executor rules, checked
from C++ (hardtanh_grad/tests/c/hardtanh_grad_checks.cpp over tests/c/ops_check_harness.h)."""
from __future__ import annotations

import hg_cchecks as cc

SOURCE = cc.program(__file__)

# Checks independent of the simulated SoC.
CHECKS = [
    "null_gradOutput", "null_self", "null_min", "null_max", "null_out", "null_workspaceSize",
    "null_executor", "null_first", "dtype_unsupported", "dtype_mismatch", "dims9", "shape_mismatch",
    "formats", "check_order", "empty_tensors", "empty_huge_dims", "zero_dim", "values",
    "transposed_views", "strided_views", "size1_dims_contiguous", "descriptors_destroyed_early",
    "workspace_too_small", "repeatable_runs", "oneshot_second_run", "phase2_is_async_order",
]
VALGRIND_CHECKS = ['transposed_views', 'strided_views', 'repeatable_runs', 'oneshot_second_run',
                   'descriptors_destroyed_early', 'empty_tensors', 'dtype_unsupported']
# Checks whose defect would be undefined behaviour the plain build does not show (signed int64
# overflow): run again against the libraries built from this tree with UBSan aborting.
UBSAN_CHECKS = ['empty_huge_dims', 'empty_tensors', 'zero_dim', 'transposed_views', 'strided_views']


cc.define_tests(globals(), SOURCE, CHECKS, VALGRIND_CHECKS, UBSAN_CHECKS)
