"""``acl.media``: pyACL's image and video processing (DVPP) functions, present and not supported.

This package has no media engine.  The functions scripts commonly call are here and answer as
a CANN whose libraries lack the API: ACL_ERROR_API_NOT_SUPPORT (200001) in pyACL's return
shape, 0 where pyACL returns a bare handle or value.
"""
from typing import TYPE_CHECKING as _TYPE_CHECKING, Callable as _Callable

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

if _TYPE_CHECKING:      # what the loops above define, as type checkers see them
    dvpp_free: _Callable[..., int]
    dvpp_create_channel: _Callable[..., int]
    dvpp_destroy_channel: _Callable[..., int]
    dvpp_destroy_channel_desc: _Callable[..., int]
    dvpp_set_channel_desc_param: _Callable[..., int]
    dvpp_destroy_pic_desc: _Callable[..., int]
    dvpp_set_pic_desc_data: _Callable[..., int]
    dvpp_set_pic_desc_size: _Callable[..., int]
    dvpp_set_pic_desc_format: _Callable[..., int]
    dvpp_set_pic_desc_width: _Callable[..., int]
    dvpp_set_pic_desc_height: _Callable[..., int]
    dvpp_set_pic_desc_width_stride: _Callable[..., int]
    dvpp_set_pic_desc_height_stride: _Callable[..., int]
    dvpp_set_pic_desc_ret_code: _Callable[..., int]
    dvpp_destroy_stream_desc: _Callable[..., int]
    dvpp_set_stream_desc_data: _Callable[..., int]
    dvpp_set_stream_desc_size: _Callable[..., int]
    dvpp_set_stream_desc_format: _Callable[..., int]
    dvpp_set_stream_desc_timestamp: _Callable[..., int]
    dvpp_set_stream_desc_ret_code: _Callable[..., int]
    dvpp_set_stream_desc_eos: _Callable[..., int]
    dvpp_destroy_batch_pic_desc: _Callable[..., int]
    dvpp_vpc_resize_async: _Callable[..., int]
    dvpp_vpc_crop_async: _Callable[..., int]
    dvpp_vpc_batch_crop_async: _Callable[..., int]
    dvpp_vpc_crop_and_paste_async: _Callable[..., int]
    dvpp_vpc_batch_crop_and_paste_async: _Callable[..., int]
    dvpp_vpc_crop_resize_async: _Callable[..., int]
    dvpp_vpc_crop_resize_paste_async: _Callable[..., int]
    dvpp_destroy_roi_config: _Callable[..., int]
    dvpp_set_roi_config: _Callable[..., int]
    dvpp_set_roi_config_left: _Callable[..., int]
    dvpp_set_roi_config_right: _Callable[..., int]
    dvpp_set_roi_config_top: _Callable[..., int]
    dvpp_set_roi_config_bottom: _Callable[..., int]
    dvpp_destroy_resize_config: _Callable[..., int]
    dvpp_set_resize_config_interpolation: _Callable[..., int]
    dvpp_jpeg_decode_async: _Callable[..., int]
    dvpp_jpeg_encode_async: _Callable[..., int]
    dvpp_destroy_jpege_config: _Callable[..., int]
    dvpp_set_jpege_config_level: _Callable[..., int]
    vdec_create_channel: _Callable[..., int]
    vdec_destroy_channel: _Callable[..., int]
    vdec_destroy_channel_desc: _Callable[..., int]
    vdec_set_channel_desc_channel_id: _Callable[..., int]
    vdec_set_channel_desc_thread_id: _Callable[..., int]
    vdec_set_channel_desc_callback: _Callable[..., int]
    vdec_set_channel_desc_entype: _Callable[..., int]
    vdec_set_channel_desc_out_pic_format: _Callable[..., int]
    vdec_set_channel_desc_out_pic_width: _Callable[..., int]
    vdec_set_channel_desc_out_pic_height: _Callable[..., int]
    vdec_set_channel_desc_ref_frame_num: _Callable[..., int]
    vdec_send_frame: _Callable[..., int]
    vdec_send_skipped_frame: _Callable[..., int]
    vdec_destroy_frame_config: _Callable[..., int]
    venc_create_channel: _Callable[..., int]
    venc_destroy_channel: _Callable[..., int]
    venc_send_frame: _Callable[..., int]
    venc_destroy_channel_desc: _Callable[..., int]
    venc_set_channel_desc_thread_id: _Callable[..., int]
    venc_set_channel_desc_callback: _Callable[..., int]
    venc_set_channel_desc_entype: _Callable[..., int]
    venc_set_channel_desc_pic_format: _Callable[..., int]
    venc_set_channel_desc_pic_width: _Callable[..., int]
    venc_set_channel_desc_pic_height: _Callable[..., int]
    venc_set_channel_desc_key_frame_interval: _Callable[..., int]
    venc_destroy_frame_config: _Callable[..., int]
    venc_set_frame_config_force_i_frame: _Callable[..., int]
    venc_set_frame_config_eos: _Callable[..., int]
    dvpp_create_channel_desc: _Callable[..., int]
    dvpp_get_channel_desc_channel_id: _Callable[..., int]
    dvpp_create_pic_desc: _Callable[..., int]
    dvpp_get_pic_desc_data: _Callable[..., int]
    dvpp_get_pic_desc_size: _Callable[..., int]
    dvpp_get_pic_desc_format: _Callable[..., int]
    dvpp_get_pic_desc_width: _Callable[..., int]
    dvpp_get_pic_desc_height: _Callable[..., int]
    dvpp_get_pic_desc_width_stride: _Callable[..., int]
    dvpp_get_pic_desc_height_stride: _Callable[..., int]
    dvpp_get_pic_desc_ret_code: _Callable[..., int]
    dvpp_create_stream_desc: _Callable[..., int]
    dvpp_get_stream_desc_data: _Callable[..., int]
    dvpp_get_stream_desc_size: _Callable[..., int]
    dvpp_get_stream_desc_format: _Callable[..., int]
    dvpp_get_stream_desc_timestamp: _Callable[..., int]
    dvpp_get_stream_desc_ret_code: _Callable[..., int]
    dvpp_get_stream_desc_eos: _Callable[..., int]
    dvpp_create_batch_pic_desc: _Callable[..., int]
    dvpp_get_pic_desc: _Callable[..., int]
    dvpp_create_roi_config: _Callable[..., int]
    dvpp_create_resize_config: _Callable[..., int]
    dvpp_get_resize_config_interpolation: _Callable[..., int]
    dvpp_create_jpege_config: _Callable[..., int]
    dvpp_get_jpege_config_level: _Callable[..., int]
    vdec_create_channel_desc: _Callable[..., int]
    vdec_create_frame_config: _Callable[..., int]
    vdec_get_channel_desc_channel_id: _Callable[..., int]
    venc_create_channel_desc: _Callable[..., int]
    venc_create_frame_config: _Callable[..., int]
    venc_get_channel_desc_channel_id: _Callable[..., int]
