"""What a restricted program may use of tensors, arrays and storages: allowlists reviewed for
memory safety. Qt-free data for :mod:`tensor_explorer.core.sandbox`.

A restricted program reaches the methods and attributes of ``torch.Tensor`` (and of its
subclasses: ``nn.Parameter``, ``nn.Buffer``...), of ``np.ndarray`` (``np.matrix``,
``np.recarray``), of NumPy scalars (``np.generic``) and of torch storages (``UntypedStorage``,
``TypedStorage``) only by the names listed here as allowed, whatever way it names them: on a
value (``x.resize_``), on its class (``type(x).resize_``, ``torch.Tensor.resize_``,
``torch.FloatTensor.resize_``, ``np.ndarray.resize``), in a format string or ``hasattr``. Each
public name of those classes, at the versions reviewed, is in exactly one of the two tables of
its kind: ``*_ALLOWED`` (reviewed: it cannot corrupt memory, torch and NumPy check its
arguments) or ``*_REFUSED`` (name -> the catalog code of the reason). A name a newer torch or
NumPy adds is in neither, and is refused (``refused.memory-unreviewed``) until someone reviews
it and adds it to one table; ``tests/core/test_sandbox_allowlist.py`` fails until then, so a
version upgrade shows what to review. ``tests/core/test_crash_fuzz.py`` and
``bench/fuzz_restricted.py`` call the allowed names with random arguments in child processes
and fail on any crash; a name that crashes moves to ``*_REFUSED`` (``refused.memory-unchecked``).

What is refused and why (the reason codes, ``refused.*`` in :mod:`.catalog`):

* ``refused.memory-resize``: changes the size or the owner of a buffer that other values may
  still be reading: ``Tensor.resize_`` / ``resize_as_`` (torch leaves a tensor with a shape its
  storage cannot hold when the storage is NumPy's), storage ``resize_`` (shrinks memory under
  live tensors), ``ndarray.resize`` (frees memory a tensor from ``torch.from_numpy`` reads).
* ``refused.memory-raw``: hands out the raw memory behind a value or the flags that guard it:
  ``ndarray.data`` (a ``memoryview``), ``setflags``, storage ``from_buffer``, ``copy_``,
  ``fill_``, ``byteswap`` (bytes written with no idea of the tensors over them).
* ``refused.memory-unchecked``: writes memory without torch's checks: ``to_mkldnn`` (an opaque
  layout whose operations trust their inputs). What the crash fuzzer finds goes here, or, for a
  method lessons need, is allowed with a check in front (:data:`NDARRAY_CHECKED`).
* ``refused.denied-attr``: refused on every object already (files, shared memory, native code:
  ``set_``, ``share_memory_``, ``ctypes``, ``tofile``...).
* ``refused.memory-storage``: a storage offers facts about its memory and copies of it; the
  conversions and device moves are not needed (use the tensor's).

The index tensors of sparse tensors (:data:`TENSOR_COPIED`) are allowed but given as copies:
torch hands out the sparse tensor's own index tensor, and an index written through it
(``s.indices()[0, 0] = 10**8``) is trusted by ``to_dense()`` and every sparse kernel, which then
write out of bounds. A copy reads the same numbers; writing to it changes only the copy.

Reviewed at torch 2.13.0 and NumPy 2.4.6.
"""

from __future__ import annotations

_RESIZE = "refused.memory-resize"
_RAW = "refused.memory-raw"
_UNCHECKED = "refused.memory-unchecked"
_DENIED = "refused.denied-attr"
_STORAGE = "refused.memory-storage"
#: the reason of a name that is in neither table (new in a torch or NumPy not reviewed)
UNREVIEWED = "refused.memory-unreviewed"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: ``torch.Tensor`` and its subclasses (``nn.Parameter``, ``nn.Buffer``,
#: ``nn.UninitializedParameter``: ``materialize``, ``cls_to_become``)
TENSOR_ALLOWED: frozenset[str] = _names("""
    H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax
    amin aminmax angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
    arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2
    atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
    bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_
    bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm
    bool broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky
    cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_
    clip clip_ clone cls_to_become coalesce col_indices conj conj_physical conj_physical_
    const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_
    count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum cumsum_
    data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ device diag
    diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim dim_order dist div
    div_ divide divide_ dot double dsplit dtype eig element_size eq eq_ equal erf erf_ erfc
    erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_ exponential_ fill_
    fill_diagonal_ fix fix_ flatten flip fliplr flipud float float_power float_power_ floor
    floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge
    ge_ geometric_ geqrf ger get_device grad grad_dtype grad_fn greater greater_ greater_equal
    greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc histogram
    hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag index index_add index_add_
    index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce
    index_reduce_ index_select indices inner int int_repr inverse ipu is_coalesced is_complex
    is_conj is_contiguous is_cpu is_cuda is_distributed is_floating_point is_inference is_ipu
    is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned
    is_quantized is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan
    is_xla is_xpu isclose isfinite isinf isnan isneginf isposinf isreal istft item itemsize kron
    kthvalue layout lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_
    lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax
    logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not logical_not_
    logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu
    lu_solve mH mT map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_
    masked_select materialize matmul matrix_exp matrix_power max maximum mean median min minimum
    mm mode module_load moveaxis movedim msort mtia mul mul_ multinomial multiply multiply_ mv
    mvlgamma mvlgamma_ name nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow
    narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_ nelement new new_empty
    new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero
    nonzero_static norm normal_ not_equal not_equal_ numel numpy orgqr ormqr outer output_nr
    permute pin_memory pinverse polygamma polygamma_ positive pow pow_ prelu prod put put_
    q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr
    qscheme quantile rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_ record_stream
    register_hook register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_
    renorm renorm_ repeat repeat_interleave requires_grad requires_grad_ reshape reshape_as
    resolve_conj resolve_neg retain_grad retains_grad roll rot90 round round_ row_indices rsqrt
    rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select
    select_scatter sgn sgn_ shape short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_
    sinh sinh_ size slice_inverse slice_scatter slogdet smm softmax solve sort sparse_dim
    sparse_mask split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std
    stft storage storage_offset storage_type stride sub sub_ subtract subtract_ sum sum_to_size
    svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh
    tanh_ tensor_split tile to to_dense to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr
    to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace transpose transpose_
    triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc trunc_ type type_as
    unbind unflatten unfold uniform_ unique unique_consecutive unsafe_chunk unsafe_split
    unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage values var vdot view view_as
    volatile vsplit where xlogy xlogy_ xpu zero_
""")
TENSOR_REFUSED: dict[str, str] = {
    "resize": _RESIZE,
    "resize_": _RESIZE,
    "resize_as": _RESIZE,
    "resize_as_": _RESIZE,
    "resize_as_sparse_": _RESIZE,
    "sparse_resize_": _RESIZE,
    "sparse_resize_and_clear_": _RESIZE,
    "set_": _DENIED,
    "share_memory_": _DENIED,
    "to_mkldnn": _UNCHECKED,
}
#: allowed, but what they return is a copy (the index tensors of sparse tensors)
TENSOR_COPIED: frozenset[str] = frozenset(
    {"indices", "crow_indices", "col_indices", "ccol_indices", "row_indices"}
)

#: ``np.ndarray`` and its subclasses ``np.matrix`` (``A``, ``I``, ``getH``...) and
#: ``np.recarray`` (``field``; a record array's own field names are read as attributes too)
NDARRAY_ALLOWED: frozenset[str] = _names("""
    A A1 H I T all any argmax argmin argpartition argsort astype base byteswap choose clip
    compress conj conjugate copy cumprod cumsum device diagonal dot dtype field fill flags flat
    flatten getA getA1 getH getI getT getfield imag item itemsize mT max mean min nbytes ndim
    nonzero partition prod ptp put ravel real repeat reshape round searchsorted setfield shape
    size sort squeeze std strides sum swapaxes take to_device tobytes tolist trace transpose var
    view
""")
#: allowed, but checked first (by ``sandbox.check_repeat``): ``repeat`` with counts whose total
#: wraps around past 2**63 makes NumPy 2.4 write out of bounds (``np.arange(4.0).repeat(2**62)``
#: is a segfault; found by the crash fuzzer); ``np.repeat`` is checked the same way
NDARRAY_CHECKED: frozenset[str] = frozenset({"repeat"})
NDARRAY_REFUSED: dict[str, str] = {
    "resize": _RESIZE,
    "data": _RAW,
    "setflags": _RAW,
    "ctypes": _DENIED,
    "dump": _DENIED,
    "dumps": _DENIED,
    "tofile": _DENIED,
}

#: NumPy scalars (``np.float32(1)``, ``a.sum()``); the names a scalar type has from its Python
#: base class (``np.float64`` is a ``float``: ``hex``, ``fromhex``) are Python's, and allowed
GENERIC_ALLOWED: frozenset[str] = _names("""
    T all any argmax argmin argsort as_integer_ratio astype base bit_count byteswap choose clip
    compress conj conjugate copy cumprod cumsum denominator device diagonal dtype fill flags
    flat flatten getfield imag is_integer item itemsize max mean min nbytes ndim nonzero
    numerator prod put ravel real repeat reshape round searchsorted setfield shape size sort
    squeeze std strides sum swapaxes take to_device tobytes tolist trace transpose var view
""")
GENERIC_REFUSED: dict[str, str] = {
    "resize": _RESIZE,
    "data": _RAW,
    "setflags": _RAW,
    "dump": _DENIED,
    "dumps": _DENIED,
    "tofile": _DENIED,
}

#: ``torch.UntypedStorage`` (``x.untyped_storage()``) and ``torch.TypedStorage``
#: (``x.storage()``): read-only facts and copies
STORAGE_ALLOWED: frozenset[str] = _names("""
    clone cpu data_ptr device element_size get_device is_cuda is_hpu is_pinned is_shared
    is_sparse is_sparse_csr nbytes resizable size tolist type untyped
""")
STORAGE_REFUSED: dict[str, str] = {
    "resize_": _RESIZE,
    "filename": _DENIED,
    "from_file": _DENIED,
    "share_memory_": _DENIED,
    "byteswap": _RAW,
    "copy_": _RAW,
    "fill_": _RAW,
    "from_buffer": _RAW,
    "bfloat16": _STORAGE,
    "bool": _STORAGE,
    "byte": _STORAGE,
    "char": _STORAGE,
    "complex_double": _STORAGE,
    "complex_float": _STORAGE,
    "cuda": _STORAGE,
    "double": _STORAGE,
    "float": _STORAGE,
    "float8_e4m3fn": _STORAGE,
    "float8_e4m3fnuz": _STORAGE,
    "float8_e5m2": _STORAGE,
    "float8_e5m2fnuz": _STORAGE,
    "half": _STORAGE,
    "hpu": _STORAGE,
    "int": _STORAGE,
    "long": _STORAGE,
    "mps": _STORAGE,
    "new": _STORAGE,
    "pickle_storage_type": _STORAGE,
    "pin_memory": _STORAGE,
    "short": _STORAGE,
    "to": _STORAGE,
}

#: kind -> (allowed names, refused names with their reasons)
TABLES: dict[str, tuple[frozenset[str], dict[str, str]]] = {
    "tensor": (TENSOR_ALLOWED, TENSOR_REFUSED),
    "ndarray": (NDARRAY_ALLOWED, NDARRAY_REFUSED),
    "generic": (GENERIC_ALLOWED, GENERIC_REFUSED),
    "storage": (STORAGE_ALLOWED, STORAGE_REFUSED),
}
#: kind -> {name: reason} of what was reviewed and left out
REVIEWED_REFUSED: dict[str, dict[str, str]] = {kind: refused for kind, (_a, refused)
                                               in TABLES.items()}
