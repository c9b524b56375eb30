"""acl.util (buffers, numpy views, threads) and the not-supported acl.mdl / acl.media."""
import ctypes
import errno
import signal
import threading
import warnings

import numpy as np
import pytest

NOT_SUPPORT = 200001


@pytest.fixture(scope="module")
def acl(hg):
    return hg.acl


# -- bytes ----------------------------------------------------------------------------------------
def test_bytes_to_ptr_is_the_bytes_objects_own_buffer(acl):
    b = b"pyACL bytes buffer"
    ptr = acl.util.bytes_to_ptr(b)
    assert ptr == ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value      # no copy
    assert ctypes.string_at(ptr, len(b)) == b
    assert acl.util.bytes_to_ptr(b) == ptr                                      # stable


@pytest.mark.parametrize("bad", [bytearray(b"x"), "text", memoryview(b"x"), np.zeros(2), 5])
def test_bytes_to_ptr_wants_bytes(acl, bad):
    with pytest.raises(ValueError, match="needs an byte as argument"):
        acl.util.bytes_to_ptr(bad)


def test_bytes_to_ptr_arity(acl):
    with pytest.raises(TypeError, match="acl.util.bytes_to_ptr args parse failed"):
        acl.util.bytes_to_ptr()
    with pytest.raises(TypeError, match="acl.util.bytes_to_ptr args parse failed"):
        acl.util.bytes_to_ptr(b"a", b"b")


def test_ptr_to_bytes_copies(acl):
    buf = ctypes.create_string_buffer(b"0123456789", 10)
    out = acl.util.ptr_to_bytes(ctypes.addressof(buf), 10)
    assert type(out) is bytes and out == b"0123456789"
    buf[0] = b"X"
    assert out == b"0123456789"                      # a copy, not a view
    assert acl.util.ptr_to_bytes(ctypes.addressof(buf), 0) == b""
    assert acl.util.ptr_to_bytes(0, 3) == bytes(3)   # no source: a new buffer of that size
    with pytest.raises(TypeError, match="acl.util.ptr_to_bytes args parse failed"):
        acl.util.ptr_to_bytes("0", 3)
    with pytest.raises(ValueError, match="convert c pointer to bytes failed"):
        acl.util.ptr_to_bytes(ctypes.addressof(buf), -1)          # 'k' wraps -1 to 2**64-1


# -- numpy ----------------------------------------------------------------------------------------
def _warning_texts(record):
    return [str(w.message) for w in record if w.category is Warning]


def test_numpy_to_ptr_is_the_data_address_and_warns(acl):
    a = np.arange(12, dtype=np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ptr = acl.util.numpy_to_ptr(a)
    assert ptr == a.ctypes.data
    assert _warning_texts(record) == ["acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr "
                                      "instead."]
    assert record[0].filename == __file__                    # attributed to the caller
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ptr = acl.util.numpy_to_ptr(a[::2])
    assert ptr == a.ctypes.data                              # still the view's first element, no copy
    assert _warning_texts(record)[1] == "The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="needs an ndarray as argument"):
            acl.util.numpy_to_ptr([1, 2])


def test_numpy_contiguous_to_ptr(acl):
    a = np.arange(12, dtype=np.int32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ptr, same = acl.util.numpy_contiguous_to_ptr(a)
        ptr2, copy = acl.util.numpy_contiguous_to_ptr(a.reshape(3, 4).T)
        ro = a.copy()
        ro.flags.writeable = False
        _, ro_copy = acl.util.numpy_contiguous_to_ptr(ro)
    assert same is a and ptr == a.ctypes.data
    assert copy is not a and copy.flags.c_contiguous and ptr2 == copy.ctypes.data
    assert (copy == a.reshape(3, 4).T).all()
    assert ro_copy is not ro                                 # as PyArray_GETCONTIGUOUS: only behaved arrays pass
    assert _warning_texts(record)[0] == ("acl.util.numpy_contiguous_to_ptr will be deprecated. Please use "
                                         "acl.util.bytes_to_ptr instead.")


@pytest.mark.parametrize("npy_type,dtype", [(0, np.bool_), (1, np.int8), (2, np.uint8), (5, np.int32),
                                            (7, np.int64), (11, np.float32), (12, np.float64), (23, np.float16)])
def test_ptr_to_numpy_is_a_writeable_view(acl, npy_type, dtype):
    src = np.zeros((2, 3), dtype)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        view = acl.util.ptr_to_numpy(src.ctypes.data, (2, 3), npy_type)
    assert view.dtype == dtype and view.shape == (2, 3) and view.flags.writeable
    assert not view.flags.owndata
    view[1, 2] = 1
    assert src[1, 2] == 1                                    # the same memory
    assert _warning_texts(record) == ["acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes "
                                      "instead."]


def test_ptr_to_numpy_bad_input(acl):
    src = np.zeros(4, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="shape is empty"):
            acl.util.ptr_to_numpy(src.ctypes.data, [4], 11)          # a list, not a tuple
        with pytest.raises(TypeError, match="the second argument is not list of int"):
            acl.util.ptr_to_numpy(src.ctypes.data, (4.0,), 11)
        with pytest.raises(TypeError, match="acl.util.ptr_to_numpy args parse failed"):
            acl.util.ptr_to_numpy(src.ctypes.data, (4,), "float32")
        with pytest.raises(TypeError):
            acl.util.ptr_to_numpy(src.ctypes.data, (4,), 9999)
        assert acl.util.ptr_to_numpy(0, (3,), 11).shape == (3,)        # NULL: numpy allocates


# -- threads --------------------------------------------------------------------------------------
def test_start_thread_gives_the_pthread_id_and_stop_thread_joins(acl):
    seen = []
    old = signal.getsignal(signal.SIGINT)
    try:
        tid, ret = acl.util.start_thread(lambda arg: seen.append((arg, threading.get_ident())), "payload")
        assert ret == 0 and type(tid) is int and tid != 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL        # as pyACL: Ctrl-C ends the process
    finally:
        signal.signal(signal.SIGINT, old)
    assert acl.util.stop_thread(tid) == 0
    assert seen == [("payload", tid)]
    assert acl.util.stop_thread(tid) == errno.ESRCH                     # joined already


def test_threads_whose_functions_ended_keep_distinct_ids_until_stopped(acl):
    """An ended thread's id is not handed to the next one started (as with joinable pthreads):
    every id start_thread gave stays valid for stop_thread."""
    old = signal.getsignal(signal.SIGINT)
    done = []
    try:
        tids = []
        for i in range(20):
            tid, ret = acl.util.start_thread(done.append, i)
            assert ret == 0
            tids.append(tid)
    finally:
        signal.signal(signal.SIGINT, old)
    assert len(set(tids)) == len(tids)
    assert [acl.util.stop_thread(t) for t in tids] == [0] * len(tids)
    assert sorted(done) == list(range(20))


def test_start_thread_none_calls_without_argument(acl):
    seen = []
    old = signal.getsignal(signal.SIGINT)
    try:
        tid, ret = acl.util.start_thread(lambda: seen.append("called"), None)
    finally:
        signal.signal(signal.SIGINT, old)
    assert acl.util.stop_thread(tid) == 0 and seen == ["called"]


def test_stop_thread_raises_when_the_function_raised(acl, capsys):
    old = signal.getsignal(signal.SIGINT)
    try:
        tid, ret = acl.util.start_thread(lambda a: 1 / 0, 1)
    finally:
        signal.signal(signal.SIGINT, old)
    with pytest.raises(RuntimeError, match=r"^exception=ZeroDivisionError,msg=thread call failed;$"):
        acl.util.stop_thread(tid)
    assert "ZeroDivisionError" in capsys.readouterr().err              # the traceback is shown


def test_thread_bad_input(acl):
    with pytest.raises(TypeError, match="parameter must be callable"):
        acl.util.start_thread(5, None)
    with pytest.raises(TypeError):
        acl.util.start_thread(print)
    with pytest.raises(TypeError, match="acl.util.stop_thread args parse failed"):
        acl.util.stop_thread("tid")
    assert acl.util.stop_thread(12345) == errno.ESRCH


# -- acl.mdl / acl.media: present, not supported ---------------------------------------------------
def test_model_and_media_calls_are_present_and_not_supported(acl):
    mdl, media = acl.mdl, acl.media
    for name in ("load_from_file", "execute", "create_desc", "get_num_inputs", "create_dataset"):
        assert hasattr(mdl, name)
    for name in ("dvpp_malloc", "dvpp_create_channel_desc", "dvpp_jpeg_decode_async", "vdec_create_channel"):
        assert hasattr(media, name)
    assert mdl.load_from_file("model.om") == (0, NOT_SUPPORT)
    assert mdl.load_from_mem(0, 0) == (0, NOT_SUPPORT)
    assert mdl.query_size("model.om") == (0, 0, NOT_SUPPORT)
    assert mdl.unload(1) == NOT_SUPPORT
    assert mdl.execute(1, 0, 0) == NOT_SUPPORT and mdl.execute_async(1, 0, 0, 0) == NOT_SUPPORT
    assert mdl.create_desc() == 0 and mdl.create_dataset() == 0                # NULL handles
    assert mdl.get_num_inputs(0) == 0 and mdl.get_input_size_by_index(0, 0) == 0
    assert mdl.get_input_name_by_index(0, 0) is None
    assert mdl.get_input_data_type(0, 0) == -1 and mdl.get_input_format(0, 0) == -1
    dims, ret = mdl.get_input_dims(0, 0)
    assert (dims, ret) == ({}, NOT_SUPPORT)
    dims["name"] = "changed"
    assert mdl.get_input_dims(0, 0) == ({}, NOT_SUPPORT)                        # a new dict each call
    assert mdl.add_dataset_buffer(1234, 0) == (1234, NOT_SUPPORT)              # pyACL returns the dataset
    assert media.dvpp_malloc(16) == (0, NOT_SUPPORT)
    assert media.dvpp_free(0) == NOT_SUPPORT
    assert media.dvpp_create_channel_desc() == 0
    assert media.dvpp_jpeg_get_image_info(0, 0) == (0, 0, 0, NOT_SUPPORT)
    assert media.dvpp_vpc_resize_async(0, 0, 0, 0, 0) == NOT_SUPPORT


def test_model_calls_parse_as_pyacl_does(acl):
    with pytest.raises(TypeError, match=r"acl.mdl.load_from_file args parse failed!"):
        acl.mdl.load_from_file(5)
    with pytest.raises(TypeError, match=r"acl.mdl.execute args parse failed!"):
        acl.mdl.execute("1", 0, 0)
    with pytest.raises(TypeError, match=r"acl.media.dvpp_malloc args parse failed!"):
        acl.media.dvpp_malloc("16")


def _module_functions(module):
    return {n: getattr(module, n) for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))}


@pytest.mark.parametrize("part", ["mdl", "media"])
def test_every_model_and_media_function_answers_not_supported(acl, part):
    """Each function returns 200001 last, or a bare NULL / zero / -1 / None, whatever it is given
    when pyACL's format is unknown, and raises pyACL's TypeError on unparsable input when it is."""
    functions = _module_functions(getattr(acl, part))
    assert len(functions) > (30 if part == "mdl" else 90)
    for name, fn in functions.items():
        fmt = None
        try:
            result = fn()
        except TypeError as exc:                     # a known format with required arguments
            assert "args parse failed" in str(exc), name
            fmt = True
            result = None
        if fmt:
            with pytest.raises(TypeError, match=f"acl.{part}.{name} args parse failed"):
                fn(object(), object(), object(), object(), object(), object(), object(), object())
            continue
        if isinstance(result, tuple):
            assert result[-1] == NOT_SUPPORT and all(v in (0, {}) for v in result[:-1]), name
        else:
            assert result in (NOT_SUPPORT, 0, -1, None), (name, result)


def test_data_buffers_and_attributes(acl):
    """pyACL's top-level data-buffer helpers (handles as ints, bare values) and attribute getters."""
    buf = acl.create_data_buffer(0x1000, 16)
    assert type(buf) is int and buf != 0
    assert acl.get_data_buffer_addr(buf) == 0x1000 and acl.get_data_buffer_size(buf) == 16
    assert acl.get_data_buffer_size_v2(buf) == 16
    assert acl.update_data_buffer(buf, 0x2000, 8) == 0 and acl.get_data_buffer_addr(buf) == 0x2000
    assert acl.destroy_data_buffer(buf) == 0
    assert acl.destroy_data_buffer(0) != 0 and acl.get_data_buffer_addr(0) == 0    # NULL: a code, 0
    for name, args in [("create_data_buffer", ("p", 1)), ("get_data_buffer_addr", (1.5,)),
                       ("destroy_data_buffer", (None,)), ("update_data_buffer", (0, 0))]:
        with pytest.raises(TypeError, match=f"acl.{name} args parse failed"):
            getattr(acl, name)(*args)
    value, ret = acl.get_cann_attribute(1)                   # ACL_CANN_ATTR_BF16
    assert ret == 0 and value in (0, 1)
    assert acl.get_cann_attribute(99)[1] != 0
    value, ret = acl.get_version_str("runtime")
    assert type(value) is str and type(ret) is int
    with pytest.raises(TypeError, match="acl.get_version_str args parse failed"):
        acl.get_version_str(None)
