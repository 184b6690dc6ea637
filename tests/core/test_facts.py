"""describe() against torch's and NumPy's own answers over a matrix of dtypes, layouts, grads."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import tensor_explorer as tx

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]
CONTRACT_KEYS = {
    "kind",
    "shape",
    "dtype",
    "device",
    "requires_grad",
    "is_leaf",
    "grad_fn",
    "grad",
    "stride",
    "storage_offset",
    "is_contiguous",
    "numel",
    "element_size",
    "nbytes",
    "storage_nbytes",
    "version",
    "is_inference",
    "internal_overlap",
}


def _layouts(base: torch.Tensor) -> dict[str, torch.Tensor]:
    return {
        "contiguous": base,
        "transposed": base.t(),
        "slice-step": base[::2, 1:],
        "row": base[1],
        "scalar": base[0, 0],
        "empty": base[:0],
        "expanded": base[:1].expand(3, -1),
        "diagonal": base.diagonal(),
        "permute-3d": base.reshape(2, 2, 3).permute(2, 0, 1),
    }


def _check_against_torch(t: torch.Tensor) -> None:
    d = tx.describe(t).to_dict()
    assert set(d) >= CONTRACT_KEYS
    json.dumps(d, allow_nan=False)  # JSON-safe
    assert d["kind"] == "tensor"
    assert d["shape"] == list(t.shape)
    assert d["dtype"] == str(t.dtype)
    assert d["device"] == str(t.device)
    assert d["stride"] == list(t.stride())
    assert d["storage_offset"] == t.storage_offset()
    assert d["is_contiguous"] == t.is_contiguous()
    assert d["numel"] == t.numel()
    assert d["element_size"] == t.element_size()
    assert d["nbytes"] == t.numel() * t.element_size()
    assert d["storage_nbytes"] == t.untyped_storage().nbytes()
    assert d["requires_grad"] == t.requires_grad
    assert d["is_leaf"] == t.is_leaf
    assert d["is_inference"] == t.is_inference()
    if not t.is_inference():
        assert d["version"] == t._version
    overlap = torch._debug_has_internal_overlap(t)
    if overlap in (0, 1):
        assert d["internal_overlap"] == bool(overlap)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_tensor_facts_match_torch_for_every_dtype_and_layout(dtype: torch.dtype) -> None:
    base = (torch.arange(12).reshape(4, 3) % 5).to(dtype)
    for label, t in _layouts(base).items():
        try:
            _check_against_torch(t)
        except AssertionError as exc:  # pragma: no cover - names the failing layout
            raise AssertionError(f"{dtype} {label}: {exc}") from exc


def test_expand_is_internal_overlap_and_not_contiguous() -> None:
    t = torch.zeros(1, 3).expand(4, 3)
    d = tx.describe(t)
    assert d.internal_overlap is True
    assert d.stride == [0, 1]
    assert d.storage_nbytes == 12


def test_grad_states() -> None:
    w = torch.randn(3, requires_grad=True)
    assert tx.describe(w).grad is None
    y = (w * 2).sum()
    fy = tx.describe(y)
    assert fy.grad_fn == type(y.grad_fn).__name__ == "SumBackward0"
    assert fy.is_leaf is False and fy.grad is None
    y.backward()
    g = tx.describe(w).to_dict()["grad"]
    assert g["shape"] == [3]
    assert g["norm"] == pytest.approx(float(w.grad.norm()))


def test_non_leaf_grad_is_read_only_when_retained() -> None:
    w = torch.randn(2, requires_grad=True)
    h = w * 3
    h.retain_grad()
    h.sum().backward()
    f = tx.describe(h)  # must not warn (pytest turns warnings into errors)
    assert f.retains_grad is True
    assert f.grad is not None and f.grad.norm == pytest.approx(float(h.grad.norm()))


def test_version_counter_follows_in_place_writes() -> None:
    t = torch.zeros(3)
    v0 = tx.describe(t).version
    t.add_(1)
    t[0] = 5
    assert tx.describe(t).version == t._version == v0 + 2


def test_inference_tensor() -> None:
    with torch.inference_mode():
        t = torch.ones(2)
    d = tx.describe(t)
    assert d.is_inference is True
    assert d.version == 0


def test_parameter_and_view_flags() -> None:
    p = torch.nn.Parameter(torch.ones(2, 2))
    assert tx.describe(p).is_parameter is True
    v = p.detach().t()
    assert tx.describe(v).is_view is True


NP_DTYPES = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_facts_match_numpy(dtype: type) -> None:
    base = (np.arange(12).reshape(4, 3) % 5).astype(dtype)
    views = {
        "contiguous": base,
        "transposed": base.T,
        "step": base[::2, 1:],
        "reversed": base[::-1],
        "scalar": base[0, 0:1].reshape(()),
        "empty": base[:0],
        "fortran": np.asfortranarray(base),
        "broadcast": np.broadcast_to(base[:1], (3, 3)),
    }
    for label, a in views.items():
        d = tx.describe(a).to_dict()
        json.dumps(d, allow_nan=False)
        assert set(d) >= CONTRACT_KEYS, label
        assert d["kind"] == "ndarray"
        assert d["shape"] == list(a.shape), label
        assert d["dtype"] == str(a.dtype)
        assert d["device"] == "cpu"
        assert d["stride"] == [s // a.itemsize for s in a.strides], label
        assert d["is_contiguous"] == a.flags.c_contiguous, label
        assert d["numel"] == a.size and d["nbytes"] == a.nbytes
        assert d["element_size"] == a.itemsize
        assert d["requires_grad"] is False and d["grad"] is None
        # the offset of the first element in the allocation, checked via the base's address
        owner = a
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        start = owner.__array_interface__["data"][0]
        if owner.strides and min(owner.strides) < 0:
            continue
        expect = (a.__array_interface__["data"][0] - start) // a.itemsize
        assert d["storage_offset"] == expect, label
        assert d["storage_nbytes"] >= owner.nbytes
        assert d["internal_overlap"] == (label == "broadcast"), label


def test_array_shared_with_tensor_reports_the_same_allocation() -> None:
    a = np.arange(6, dtype=np.float32)
    t = torch.from_numpy(a[2:])
    fa, ft = tx.describe(a[2:]), tx.describe(t)
    assert fa.storage_offset == 2  # two float32 elements into the array's allocation
    assert ft.storage_offset == t.storage_offset()  # torch's own view of its storage
    assert ft.storage_nbytes == t.untyped_storage().nbytes()


def test_big_endian_array() -> None:
    a = np.arange(4, dtype=">i4")
    d = tx.describe(a)
    assert d.byte_order == ("big-endian" if np.little_endian else "native")
    assert d.dtype == ">i4"


def test_numpy_scalar_is_a_0d_array() -> None:
    d = tx.describe(np.float32(2.5))
    assert d.shape == [] and d.numel == 1


def test_other_types_are_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"torch\.Tensor or a numpy\.ndarray, not list"):
        tx.describe([1, 2, 3])


def test_meta_tensor_has_facts_but_no_memory() -> None:
    t = torch.empty(2, 3, device="meta")
    d = tx.describe(t)
    assert d.device == "meta" and d.shape == [2, 3]


def test_a_memory_mapped_file_says_which_file_offset_and_mode(tmp_path) -> None:
    # issue #17: a memory-mapped .npy is the file's array, not "a view" at "storage offset 32"
    p = tmp_path / "big.npy"
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(p, data)
    header = p.stat().st_size - data.nbytes
    a = tx.load_array(p, mmap_threshold=0)
    f = tx.describe(a)
    assert (f.mapped_file, f.mapped_offset, f.mapped_mode) == (str(p), header, "copy-on-write")
    assert f.is_view is False and f.storage_offset == 0 and f.storage_nbytes == data.nbytes
    row = tx.describe(a[1:])
    assert row.is_view is True and row.mapped_offset == header + 16 and row.storage_offset == 4
    t, note = tx.to_tensor(a)
    assert note is None
    ft = tx.describe(t[2])
    assert (ft.mapped_file, ft.mapped_offset) == (str(p), header + 32)
    # an array the user mapped with NumPy: read-only, and the same file
    mine = np.load(p, mmap_mode="r")
    fm = tx.describe(mine)
    assert (fm.mapped_file, fm.mapped_offset, fm.mapped_mode) == (str(p), header, "read-only")
    assert fm.is_view is False and fm.storage_offset == 0
    assert tx.describe(np.array(mine)).mapped_file is None


def test_slices_of_a_numpy_memmap_map_from_their_own_byte(tmp_path) -> None:
    p = tmp_path / "a.npy"
    np.save(p, np.arange(100, dtype=np.float32))
    header = p.stat().st_size - 400
    mm = np.load(p, mmap_mode="r")
    for view, first in ((mm, 0), (mm[10:20], 10), (mm[::-7], 99), (mm[10:][5:], 15)):
        f = tx.describe(view)
        assert (f.mapped_file, f.mapped_offset) == (str(p), header + 4 * first)
        assert f.storage_offset == first and f.storage_nbytes == 400
        assert f.is_view is (view is not mm)


@pytest.mark.parametrize("order", ["C", "F"])
def test_an_array_read_from_a_file_is_not_a_view(tmp_path, order: str) -> None:
    # like np.load's arrays: read into memory the array owns (a .npy, or a .npz member)
    data = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    np.save(tmp_path / "a.npy", data)
    np.savez_compressed(tmp_path / "b.npz", m=data)
    np.savez(tmp_path / "c.npz", m=data)
    with tx.load_arrays(tmp_path / "b.npz") as b, tx.load_arrays(tmp_path / "c.npz") as c:
        for a in (tx.load_array(tmp_path / "a.npy"), b["m"], c["m"]):
            assert np.array_equal(a, data) and a.flags.f_contiguous == (order == "F")
            f = tx.describe(a)
            assert f.is_view is False and a.base is None and f.mapped_file is None


def test_facts_notes_are_catalog_messages() -> None:
    # `inspect --json` and the API print them in English as before; a window can say them in
    # its language
    from tensor_explorer.core.catalog import Message, text_in

    with torch.inference_mode():
        t = torch.ones(2)
    notes = tx.describe(t).notes
    assert notes == ["inference tensors have no version counter"]
    assert isinstance(notes[0], Message) and text_in(notes[0], "zh") != notes[0]
