"""``acl.mdl``: pyACL's model-inference functions, present and not supported.

This package runs CANN's runtime and aclnn operators, not offline models (.om files).  Every
function pyACL's ``acl.mdl`` has that scripts commonly call is here, checks its arguments as
pyACL does, and answers as a CANN whose libraries lack the API: ACL_ERROR_API_NOT_SUPPORT
(200001) in pyACL's return shape, with 0 (a NULL handle, a zero count or size), -1 (an
undefined format or data type) or None (no name) where pyACL returns a bare value.
"""
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any, Callable as _Callable, Optional as _Optional

from ._core import ACL_ERROR_API_NOT_SUPPORT as _ACL_ERROR_API_NOT_SUPPORT, not_supported as _not_supported

_M = "acl.mdl"

# name: (pyACL parse format or None, values before the code, or bare=...)
_RET: tuple[_Any, ...] = ()
_DICT: tuple[_Any, ...] = ({},)
_TABLE: dict[str, tuple[_Optional[str], tuple[_Any, ...]]] = {
    "load_from_file": ("s", (0,)), "load_from_mem": ("kk", (0,)),
    "load_from_file_with_mem": ("skkkk", (0,)), "load_from_mem_with_mem": ("kkkkkk", (0,)),
    "unload": ("I", _RET), "query_size": ("s", (0, 0)), "query_size_from_mem": ("kk", (0, 0)),
    "set_dynamic_batch_size": ("IkkK", _RET), "set_dynamic_hw_size": ("IkkKK", _RET),
    "execute": ("Ikk", _RET), "execute_async": ("Ikkk", _RET),
    "destroy_dataset": ("k", _RET), "get_desc": ("kI", _RET), "destroy_desc": ("k", _RET),
    "destroy_aipp": ("k", _RET),
    "get_input_dims": ("kk", _DICT), "get_input_dims_v2": ("kk", _DICT), "get_output_dims": ("kk", _DICT),
    "get_cur_output_dims": ("kk", _DICT),
    "get_input_index_by_name": (None, (0,)), "get_output_index_by_name": (None, (0,)),
    "get_dynamic_batch": (None, _DICT), "get_dynamic_hw": (None, _DICT),
    "set_input_dynamic_dims": (None, _RET), "set_input_aipp": (None, _RET),
    "set_aipp_by_input_index": (None, _RET), "get_first_aipp_info": (None, _DICT),
    "get_aipp_type": (None, (0, 0)),
    "init_dump": (None, _RET), "set_dump": (None, _RET), "finalize_dump": (None, _RET),
    "load_with_config": (None, (0,)), "destroy_config_handle": (None, _RET), "set_config_opt": (None, _RET),
    "execute_v2": (None, _RET), "destroy_exec_config_handle": (None, _RET), "set_exec_config_opt": (None, _RET),
}
_BARE: dict[str, _Optional[int]] = {
    "create_dataset": 0, "create_desc": 0, "create_aipp": 0, "create_config_handle": 0,
    "create_exec_config_handle": 0,
    "get_dataset_buffer": 0, "get_dataset_num_buffers": 0, "get_num_inputs": 0, "get_num_outputs": 0,
    "get_input_size_by_index": 0, "get_output_size_by_index": 0,
    "get_input_name_by_index": None, "get_output_name_by_index": None,
    "get_input_format": -1, "get_output_format": -1, "get_input_data_type": -1, "get_output_data_type": -1,
}
_BARE_FMT = {"get_dataset_buffer": "kk", "get_dataset_num_buffers": "k", "get_num_inputs": "k",
             "get_num_outputs": "k", "get_input_size_by_index": "kk", "get_output_size_by_index": "kk",
             "get_input_name_by_index": "kk", "get_output_name_by_index": "kk", "get_input_format": "kk",
             "get_output_format": "kk", "get_input_data_type": "kk", "get_output_data_type": "kk",
             "create_aipp": "K"}

for _name, (_fmt, _values) in _TABLE.items():
    globals()[_name] = _not_supported(_M, _name, _fmt, _values, message=f"{_M}.{_name} args parse failed!")
for _name, _value in _BARE.items():
    globals()[_name] = _not_supported(_M, _name, _BARE_FMT.get(_name), bare=_value,
                                     message=f"{_M}.{_name} args parse failed!")

if _TYPE_CHECKING:      # what the loops above define, as type checkers see them
    load_from_file: _Callable[..., tuple[_Any, ...]]
    load_from_mem: _Callable[..., tuple[_Any, ...]]
    load_from_file_with_mem: _Callable[..., tuple[_Any, ...]]
    load_from_mem_with_mem: _Callable[..., tuple[_Any, ...]]
    unload: _Callable[..., int]
    query_size: _Callable[..., tuple[_Any, ...]]
    query_size_from_mem: _Callable[..., tuple[_Any, ...]]
    set_dynamic_batch_size: _Callable[..., int]
    set_dynamic_hw_size: _Callable[..., int]
    execute: _Callable[..., int]
    execute_async: _Callable[..., int]
    destroy_dataset: _Callable[..., int]
    get_desc: _Callable[..., int]
    destroy_desc: _Callable[..., int]
    destroy_aipp: _Callable[..., int]
    get_input_dims: _Callable[..., tuple[_Any, ...]]
    get_input_dims_v2: _Callable[..., tuple[_Any, ...]]
    get_output_dims: _Callable[..., tuple[_Any, ...]]
    get_cur_output_dims: _Callable[..., tuple[_Any, ...]]
    get_input_index_by_name: _Callable[..., tuple[_Any, ...]]
    get_output_index_by_name: _Callable[..., tuple[_Any, ...]]
    get_dynamic_batch: _Callable[..., tuple[_Any, ...]]
    get_dynamic_hw: _Callable[..., tuple[_Any, ...]]
    set_input_dynamic_dims: _Callable[..., int]
    set_input_aipp: _Callable[..., int]
    set_aipp_by_input_index: _Callable[..., int]
    get_first_aipp_info: _Callable[..., tuple[_Any, ...]]
    get_aipp_type: _Callable[..., tuple[_Any, ...]]
    init_dump: _Callable[..., int]
    set_dump: _Callable[..., int]
    finalize_dump: _Callable[..., int]
    load_with_config: _Callable[..., tuple[_Any, ...]]
    destroy_config_handle: _Callable[..., int]
    set_config_opt: _Callable[..., int]
    execute_v2: _Callable[..., int]
    destroy_exec_config_handle: _Callable[..., int]
    set_exec_config_opt: _Callable[..., int]
    create_dataset: _Callable[..., int]
    create_desc: _Callable[..., int]
    create_aipp: _Callable[..., int]
    create_config_handle: _Callable[..., int]
    create_exec_config_handle: _Callable[..., int]
    get_dataset_buffer: _Callable[..., int]
    get_dataset_num_buffers: _Callable[..., int]
    get_num_inputs: _Callable[..., int]
    get_num_outputs: _Callable[..., int]
    get_input_size_by_index: _Callable[..., int]
    get_output_size_by_index: _Callable[..., int]
    get_input_name_by_index: _Callable[..., None]
    get_output_name_by_index: _Callable[..., None]
    get_input_format: _Callable[..., int]
    get_output_format: _Callable[..., int]
    get_input_data_type: _Callable[..., int]
    get_output_data_type: _Callable[..., int]


def add_dataset_buffer(*args: _Any) -> tuple[int, int]:
    """acl.mdl.add_dataset_buffer(dataset, buffer) -> (dataset, 200001): not supported"""
    from ._args import parse
    dataset, _ = parse(f"{_M}.add_dataset_buffer", args, "kk", f"{_M}.add_dataset_buffer args parse failed!")
    return dataset, _ACL_ERROR_API_NOT_SUPPORT


del _name, _fmt, _values, _value
