"""``acl.media``: pyACL's image and video processing (DVPP) functions, present and not supported.

This package has no media engine.  The functions scripts commonly call are here and answer as
a CANN whose libraries lack the API: ACL_ERROR_API_NOT_SUPPORT (200001) in pyACL's return
shape, 0 where pyACL returns a bare handle or value.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ._core import not_supported as _not_supported

_M = "acl.media"

_RET_FUNCTIONS = (
    "dvpp_free", "dvpp_create_channel", "dvpp_destroy_channel", "dvpp_destroy_channel_desc",
    "dvpp_set_channel_desc_param", "dvpp_destroy_pic_desc", "dvpp_set_pic_desc_data",
    "dvpp_set_pic_desc_size", "dvpp_set_pic_desc_format", "dvpp_set_pic_desc_width",
    "dvpp_set_pic_desc_height", "dvpp_set_pic_desc_width_stride", "dvpp_set_pic_desc_height_stride",
    "dvpp_set_pic_desc_ret_code", "dvpp_destroy_stream_desc", "dvpp_set_stream_desc_data",
    "dvpp_set_stream_desc_size", "dvpp_set_stream_desc_format", "dvpp_set_stream_desc_timestamp",
    "dvpp_set_stream_desc_ret_code", "dvpp_set_stream_desc_eos", "dvpp_destroy_batch_pic_desc",
    "dvpp_vpc_resize_async", "dvpp_vpc_crop_async", "dvpp_vpc_batch_crop_async",
    "dvpp_vpc_crop_and_paste_async", "dvpp_vpc_batch_crop_and_paste_async", "dvpp_vpc_crop_resize_async",
    "dvpp_vpc_crop_resize_paste_async", "dvpp_destroy_roi_config", "dvpp_set_roi_config",
    "dvpp_set_roi_config_left", "dvpp_set_roi_config_right", "dvpp_set_roi_config_top",
    "dvpp_set_roi_config_bottom", "dvpp_destroy_resize_config", "dvpp_set_resize_config_interpolation",
    "dvpp_jpeg_decode_async", "dvpp_jpeg_encode_async", "dvpp_destroy_jpege_config",
    "dvpp_set_jpege_config_level",
    "vdec_create_channel", "vdec_destroy_channel", "vdec_destroy_channel_desc",
    "vdec_set_channel_desc_channel_id", "vdec_set_channel_desc_thread_id", "vdec_set_channel_desc_callback",
    "vdec_set_channel_desc_entype", "vdec_set_channel_desc_out_pic_format",
    "vdec_set_channel_desc_out_pic_width", "vdec_set_channel_desc_out_pic_height",
    "vdec_set_channel_desc_ref_frame_num", "vdec_send_frame", "vdec_send_skipped_frame",
    "vdec_destroy_frame_config",
    "venc_create_channel", "venc_destroy_channel", "venc_send_frame", "venc_destroy_channel_desc",
    "venc_set_channel_desc_thread_id", "venc_set_channel_desc_callback", "venc_set_channel_desc_entype",
    "venc_set_channel_desc_pic_format", "venc_set_channel_desc_pic_width", "venc_set_channel_desc_pic_height",
    "venc_set_channel_desc_key_frame_interval", "venc_destroy_frame_config",
    "venc_set_frame_config_force_i_frame", "venc_set_frame_config_eos",
)
_BARE_FUNCTIONS = (
    "dvpp_create_channel_desc", "dvpp_get_channel_desc_channel_id", "dvpp_create_pic_desc",
    "dvpp_get_pic_desc_data", "dvpp_get_pic_desc_size", "dvpp_get_pic_desc_format",
    "dvpp_get_pic_desc_width", "dvpp_get_pic_desc_height", "dvpp_get_pic_desc_width_stride",
    "dvpp_get_pic_desc_height_stride", "dvpp_get_pic_desc_ret_code", "dvpp_create_stream_desc",
    "dvpp_get_stream_desc_data", "dvpp_get_stream_desc_size", "dvpp_get_stream_desc_format",
    "dvpp_get_stream_desc_timestamp", "dvpp_get_stream_desc_ret_code", "dvpp_get_stream_desc_eos",
    "dvpp_create_batch_pic_desc", "dvpp_get_pic_desc", "dvpp_create_roi_config", "dvpp_create_resize_config",
    "dvpp_get_resize_config_interpolation", "dvpp_create_jpege_config", "dvpp_get_jpege_config_level",
    "vdec_create_channel_desc", "vdec_create_frame_config", "vdec_get_channel_desc_channel_id",
    "venc_create_channel_desc", "venc_create_frame_config", "venc_get_channel_desc_channel_id",
)

dvpp_malloc = _not_supported(_M, "dvpp_malloc", "k", (0,), message=f"{_M}.dvpp_malloc args parse failed!")
dvpp_jpeg_get_image_info = _not_supported(_M, "dvpp_jpeg_get_image_info", "kI", (0, 0, 0))
dvpp_jpeg_get_image_info_v2 = _not_supported(_M, "dvpp_jpeg_get_image_info_v2", "kI", (0, 0, 0, 0))
dvpp_jpeg_predict_dec_size = _not_supported(_M, "dvpp_jpeg_predict_dec_size", None, (0,))
dvpp_jpeg_predict_enc_size = _not_supported(_M, "dvpp_jpeg_predict_enc_size", None, (0,))

for _name in _RET_FUNCTIONS:
    globals()[_name] = _not_supported(_M, _name)
for _name in _BARE_FUNCTIONS:
    globals()[_name] = _not_supported(_M, _name, bare=0)
del _name

if TYPE_CHECKING:      # what the loops above define, as type checkers see them
    dvpp_free: Callable[..., int]
    dvpp_create_channel: Callable[..., int]
    dvpp_destroy_channel: Callable[..., int]
    dvpp_destroy_channel_desc: Callable[..., int]
    dvpp_set_channel_desc_param: Callable[..., int]
    dvpp_destroy_pic_desc: Callable[..., int]
    dvpp_set_pic_desc_data: Callable[..., int]
    dvpp_set_pic_desc_size: Callable[..., int]
    dvpp_set_pic_desc_format: Callable[..., int]
    dvpp_set_pic_desc_width: Callable[..., int]
    dvpp_set_pic_desc_height: Callable[..., int]
    dvpp_set_pic_desc_width_stride: Callable[..., int]
    dvpp_set_pic_desc_height_stride: Callable[..., int]
    dvpp_set_pic_desc_ret_code: Callable[..., int]
    dvpp_destroy_stream_desc: Callable[..., int]
    dvpp_set_stream_desc_data: Callable[..., int]
    dvpp_set_stream_desc_size: Callable[..., int]
    dvpp_set_stream_desc_format: Callable[..., int]
    dvpp_set_stream_desc_timestamp: Callable[..., int]
    dvpp_set_stream_desc_ret_code: Callable[..., int]
    dvpp_set_stream_desc_eos: Callable[..., int]
    dvpp_destroy_batch_pic_desc: Callable[..., int]
    dvpp_vpc_resize_async: Callable[..., int]
    dvpp_vpc_crop_async: Callable[..., int]
    dvpp_vpc_batch_crop_async: Callable[..., int]
    dvpp_vpc_crop_and_paste_async: Callable[..., int]
    dvpp_vpc_batch_crop_and_paste_async: Callable[..., int]
    dvpp_vpc_crop_resize_async: Callable[..., int]
    dvpp_vpc_crop_resize_paste_async: Callable[..., int]
    dvpp_destroy_roi_config: Callable[..., int]
    dvpp_set_roi_config: Callable[..., int]
    dvpp_set_roi_config_left: Callable[..., int]
    dvpp_set_roi_config_right: Callable[..., int]
    dvpp_set_roi_config_top: Callable[..., int]
    dvpp_set_roi_config_bottom: Callable[..., int]
    dvpp_destroy_resize_config: Callable[..., int]
    dvpp_set_resize_config_interpolation: Callable[..., int]
    dvpp_jpeg_decode_async: Callable[..., int]
    dvpp_jpeg_encode_async: Callable[..., int]
    dvpp_destroy_jpege_config: Callable[..., int]
    dvpp_set_jpege_config_level: Callable[..., int]
    vdec_create_channel: Callable[..., int]
    vdec_destroy_channel: Callable[..., int]
    vdec_destroy_channel_desc: Callable[..., int]
    vdec_set_channel_desc_channel_id: Callable[..., int]
    vdec_set_channel_desc_thread_id: Callable[..., int]
    vdec_set_channel_desc_callback: Callable[..., int]
    vdec_set_channel_desc_entype: Callable[..., int]
    vdec_set_channel_desc_out_pic_format: Callable[..., int]
    vdec_set_channel_desc_out_pic_width: Callable[..., int]
    vdec_set_channel_desc_out_pic_height: Callable[..., int]
    vdec_set_channel_desc_ref_frame_num: Callable[..., int]
    vdec_send_frame: Callable[..., int]
    vdec_send_skipped_frame: Callable[..., int]
    vdec_destroy_frame_config: Callable[..., int]
    venc_create_channel: Callable[..., int]
    venc_destroy_channel: Callable[..., int]
    venc_send_frame: Callable[..., int]
    venc_destroy_channel_desc: Callable[..., int]
    venc_set_channel_desc_thread_id: Callable[..., int]
    venc_set_channel_desc_callback: Callable[..., int]
    venc_set_channel_desc_entype: Callable[..., int]
    venc_set_channel_desc_pic_format: Callable[..., int]
    venc_set_channel_desc_pic_width: Callable[..., int]
    venc_set_channel_desc_pic_height: Callable[..., int]
    venc_set_channel_desc_key_frame_interval: Callable[..., int]
    venc_destroy_frame_config: Callable[..., int]
    venc_set_frame_config_force_i_frame: Callable[..., int]
    venc_set_frame_config_eos: Callable[..., int]
    dvpp_create_channel_desc: Callable[..., int]
    dvpp_get_channel_desc_channel_id: Callable[..., int]
    dvpp_create_pic_desc: Callable[..., int]
    dvpp_get_pic_desc_data: Callable[..., int]
    dvpp_get_pic_desc_size: Callable[..., int]
    dvpp_get_pic_desc_format: Callable[..., int]
    dvpp_get_pic_desc_width: Callable[..., int]
    dvpp_get_pic_desc_height: Callable[..., int]
    dvpp_get_pic_desc_width_stride: Callable[..., int]
    dvpp_get_pic_desc_height_stride: Callable[..., int]
    dvpp_get_pic_desc_ret_code: Callable[..., int]
    dvpp_create_stream_desc: Callable[..., int]
    dvpp_get_stream_desc_data: Callable[..., int]
    dvpp_get_stream_desc_size: Callable[..., int]
    dvpp_get_stream_desc_format: Callable[..., int]
    dvpp_get_stream_desc_timestamp: Callable[..., int]
    dvpp_get_stream_desc_ret_code: Callable[..., int]
    dvpp_get_stream_desc_eos: Callable[..., int]
    dvpp_create_batch_pic_desc: Callable[..., int]
    dvpp_get_pic_desc: Callable[..., int]
    dvpp_create_roi_config: Callable[..., int]
    dvpp_create_resize_config: Callable[..., int]
    dvpp_get_resize_config_interpolation: Callable[..., int]
    dvpp_create_jpege_config: Callable[..., int]
    dvpp_get_jpege_config_level: Callable[..., int]
    vdec_create_channel_desc: Callable[..., int]
    vdec_create_frame_config: Callable[..., int]
    vdec_get_channel_desc_channel_id: Callable[..., int]
    venc_create_channel_desc: Callable[..., int]
    venc_create_frame_config: Callable[..., int]
    venc_get_channel_desc_channel_id: Callable[..., int]
