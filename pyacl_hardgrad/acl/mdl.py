"""``acl.mdl``: pyACL's model-inference functions, present and not supported.

This package runs CANN's runtime and aclnn operators, not offline models (.om files).  Every
function pyACL's ``acl.mdl`` has that scripts commonly call is here, checks its arguments as
pyACL does, and answers as a CANN whose libraries lack the API: ACL_ERROR_API_NOT_SUPPORT
(200001) in pyACL's return shape, with 0 (a NULL handle, a zero count or size), -1 (an
undefined format or data type) or None (no name) where pyACL returns a bare value.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ._core import ACL_ERROR_API_NOT_SUPPORT as _ACL_ERROR_API_NOT_SUPPORT, not_supported as _not_supported

_M = "acl.mdl"

# name: (pyACL parse format or None, values before the code, or bare=...)
_RET: tuple[Any, ...] = ()
_DICT: tuple[Any, ...] = ({},)
_TABLE: dict[str, tuple[str | None, tuple[Any, ...]]] = {
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
_BARE: dict[str, int | None] = {
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

if TYPE_CHECKING:      # what the loops above define, as type checkers see them
    load_from_file: Callable[..., tuple[Any, ...]]
    load_from_mem: Callable[..., tuple[Any, ...]]
    load_from_file_with_mem: Callable[..., tuple[Any, ...]]
    load_from_mem_with_mem: Callable[..., tuple[Any, ...]]
    unload: Callable[..., int]
    query_size: Callable[..., tuple[Any, ...]]
    query_size_from_mem: Callable[..., tuple[Any, ...]]
    set_dynamic_batch_size: Callable[..., int]
    set_dynamic_hw_size: Callable[..., int]
    execute: Callable[..., int]
    execute_async: Callable[..., int]
    destroy_dataset: Callable[..., int]
    get_desc: Callable[..., int]
    destroy_desc: Callable[..., int]
    destroy_aipp: Callable[..., int]
    get_input_dims: Callable[..., tuple[Any, ...]]
    get_input_dims_v2: Callable[..., tuple[Any, ...]]
    get_output_dims: Callable[..., tuple[Any, ...]]
    get_cur_output_dims: Callable[..., tuple[Any, ...]]
    get_input_index_by_name: Callable[..., tuple[Any, ...]]
    get_output_index_by_name: Callable[..., tuple[Any, ...]]
    get_dynamic_batch: Callable[..., tuple[Any, ...]]
    get_dynamic_hw: Callable[..., tuple[Any, ...]]
    set_input_dynamic_dims: Callable[..., int]
    set_input_aipp: Callable[..., int]
    set_aipp_by_input_index: Callable[..., int]
    get_first_aipp_info: Callable[..., tuple[Any, ...]]
    get_aipp_type: Callable[..., tuple[Any, ...]]
    init_dump: Callable[..., int]
    set_dump: Callable[..., int]
    finalize_dump: Callable[..., int]
    load_with_config: Callable[..., tuple[Any, ...]]
    destroy_config_handle: Callable[..., int]
    set_config_opt: Callable[..., int]
    execute_v2: Callable[..., int]
    destroy_exec_config_handle: Callable[..., int]
    set_exec_config_opt: Callable[..., int]
    create_dataset: Callable[..., int]
    create_desc: Callable[..., int]
    create_aipp: Callable[..., int]
    create_config_handle: Callable[..., int]
    create_exec_config_handle: Callable[..., int]
    get_dataset_buffer: Callable[..., int]
    get_dataset_num_buffers: Callable[..., int]
    get_num_inputs: Callable[..., int]
    get_num_outputs: Callable[..., int]
    get_input_size_by_index: Callable[..., int]
    get_output_size_by_index: Callable[..., int]
    get_input_name_by_index: Callable[..., None]
    get_output_name_by_index: Callable[..., None]
    get_input_format: Callable[..., int]
    get_output_format: Callable[..., int]
    get_input_data_type: Callable[..., int]
    get_output_data_type: Callable[..., int]


def add_dataset_buffer(*args: Any) -> tuple[int, int]:
    """acl.mdl.add_dataset_buffer(dataset, buffer) -> (dataset, 200001): not supported"""
    from ._args import parse
    dataset, _ = parse(f"{_M}.add_dataset_buffer", args, "kk", f"{_M}.add_dataset_buffer args parse failed!")
    return dataset, _ACL_ERROR_API_NOT_SUPPORT


del _name, _fmt, _values, _value
