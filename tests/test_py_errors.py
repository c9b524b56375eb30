"""Error hierarchy: code, symbolic name, function and message on every exception."""
import os
import subprocess
import sys

import pytest

import py_op_cases


def test_code_names_come_from_the_headers(hg):
    from pyacl_hardgrad import errors, lib
    assert errors.code_name(lib.ACL_ERROR_RT_CONTEXT_NULL) == "ACL_ERROR_RT_CONTEXT_NULL"
    assert errors.code_name(161002) == "ACLNN_ERR_PARAM_INVALID"
    assert errors.code_name(200001) == "ACL_ERROR_API_NOT_SUPPORT"
    assert errors.code_name(100002) == "ACL_ERROR_REPEAT_INITIALIZE"
    assert errors.code_name(0) == "ACL_SUCCESS"
    assert errors.code_name(123) == "UNKNOWN(123)"


@pytest.mark.parametrize("code, cls", [
    (100000, "RuntimeApiError"), (107002, "RuntimeApiError"), (207001, "RuntimeApiError"),
    (507000, "RuntimeApiError"), (161001, "AclnnParamError"), (161002, "AclnnParamError"),
    (361001, "AclnnError"), (561103, "AclnnError"), (200001, "ApiNotSupportedError"),
])
def test_classification(hg, code, cls):
    from pyacl_hardgrad import errors
    with pytest.raises(getattr(errors, cls)) as ei:
        errors.check(code, "someFunction")
    e = ei.value
    assert type(e).__name__ == cls and isinstance(e, errors.AclError)
    assert e.code == code and e.function == "someFunction" and e.name == errors.code_name(code)


def test_check_success_is_silent(hg):
    assert hg.check(0, "aclInit") is None


@pytest.mark.check_findings("no-current-device")
def test_runtime_error_carries_recent_message(hg):
    from pyacl_hardgrad import ffi, lib
    p = ffi.new("void **")
    with hg.Runtime():
        # No device set on a fresh thread -> ACL_ERROR_RT_CONTEXT_NULL with the text set.
        import threading
        box = []

        def worker():
            try:
                hg.check(lib.aclrtMalloc(p, 16, 0), "aclrtMalloc")
            except hg.AclError as exc:
                box.append(exc)
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    (e,) = box
    assert isinstance(e, hg.RuntimeApiError)
    assert (e.code, e.name, e.function) == (107002, "ACL_ERROR_RT_CONTEXT_NULL", "aclrtMalloc")
    assert "aclrtMalloc" in e.message and e.message in str(e)


@pytest.mark.parametrize("case", py_op_cases.cases(), ids=repr)
def test_operator_param_error(hg, case):
    with hg.Device(0) as dev, hg.zeros((2, 2), "uint16", dev) as a:     # a dtype none of them takes
        with pytest.raises(hg.AclnnParamError) as ei:
            case.call([a] * len(case.tensor_params))
    e = ei.value
    assert e.code == 161002 and e.function == f"{case.spec.name}GetWorkspaceSize"
    assert "DT_UINT16" in e.message
    assert isinstance(e, ValueError)


def test_api_not_supported_names_missing_function(hg):
    from pyacl_hardgrad import errors
    e = errors.ApiNotSupportedError(200001, "aclFoo", missing_function="aclFoo")
    assert e.missing_function == "aclFoo" and "aclFoo" in str(e) and isinstance(e, NotImplementedError)


def test_errors_pickle(hg):
    import pickle
    e = pickle.loads(pickle.dumps(hg.AclnnParamError(161001, "f", "m")))
    assert (type(e), e.code, e.function, e.message) == (hg.AclnnParamError, 161001, "f", "m")


def test_forced_cann_without_install_lists_places(hg, tmp_path):
    env = dict(os.environ, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path / "nothing"))
    env.pop("ASCEND_TOOLKIT_HOME", None)
    proc = subprocess.run([sys.executable, "-c", "import pyacl_hardgrad; pyacl_hardgrad.lib"],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode != 0
    assert "BackendError" in proc.stderr
    assert str(tmp_path / "nothing") in proc.stderr and "$ASCEND_HOME_PATH" in proc.stderr
    assert "/usr/local/Ascend/ascend-toolkit/latest" in proc.stderr


def test_cleanup_failure_is_a_warning(hg):
    from pyacl_hardgrad import errors
    with pytest.warns(errors.CleanupWarning, match="aclrtFree"):
        errors.warn_status(107000, "aclrtFree")


def test_info_command_reports_a_backend_problem_without_a_traceback(hg, tmp_path):
    env = dict(os.environ, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path / "nothing"))
    env.pop("ASCEND_TOOLKIT_HOME", None)
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "info"],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("pyacl_hardgrad: PYACL_HARDGRAD_BACKEND=cann but no CANN install")
    assert str(tmp_path / "nothing") in proc.stderr
