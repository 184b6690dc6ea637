"""core/memory.py against brute force: byte sets materialised from element offsets, and the
offsets themselves checked against torch's data_ptr/storage_offset/stride and NumPy's
__array_interface__."""

from __future__ import annotations

import mmap
import re
import warnings
from collections.abc import Callable

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import memory as m

Value = torch.Tensor | np.ndarray


# ---------------------------------------------------------------------------- ground truth


def true_offsets(v: Value) -> np.ndarray:
    """Absolute address of every element, from torch's / NumPy's own bookkeeping."""
    if isinstance(v, torch.Tensor):
        item = v.element_size()
        strides = [s * item for s in v.stride()]
        ptr = v.untyped_storage().data_ptr() + v.storage_offset() * item
        if v.numel():  # data_ptr() is 0 for empty tensors
            assert v.data_ptr() == ptr
    else:
        ptr = v.__array_interface__["data"][0]
        strides = list(v.strides)
    out = np.full(v.shape, ptr, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(v.shape, strides, strict=True)):
        shape = [1] * v.ndim
        shape[axis] = n
        out = out + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return out


def itemsize(v: Value) -> int:
    return v.element_size() if isinstance(v, torch.Tensor) else v.itemsize


def byte_set(v: Value) -> np.ndarray:
    offs = true_offsets(v).ravel()
    return np.unique((offs[:, None] + np.arange(itemsize(v))[None, :]).ravel())


def brute_overlap(v: Value) -> bool:
    n = v.numel() if isinstance(v, torch.Tensor) else v.size
    return n > 1 and len(byte_set(v)) != n * itemsize(v)


def brute_relation(a: Value, b: Value) -> tuple[str, int]:
    ba, bb = byte_set(a), byte_set(b)
    shared = len(np.intersect1d(ba, bb, assume_unique=True))
    if shared == len(ba) == len(bb):
        return "alias", shared
    if shared == len(bb):
        return "contains", shared
    if shared == len(ba):
        return "inside", shared
    return ("overlap" if shared else "same-storage"), shared


def check_pair(a: Value, b: Value) -> None:
    kind, shared = brute_relation(a, b)
    rel = tx.relation(a, b)
    assert rel is not None
    assert (rel.kind, rel.shared_bytes) == (kind, shared)
    assert rel.a_bytes == len(byte_set(a)) and rel.b_bytes == len(byte_set(b))
    back = tx.relation(b, a)
    assert back is not None and back == rel.swapped()


def check_offsets(v: Value) -> None:
    offs = tx.element_offsets(v)
    alloc = m.allocation(v)
    assert offs.dtype == np.int64 and offs.shape == tuple(v.shape)
    assert alloc.start is not None
    np.testing.assert_array_equal(offs + alloc.start, true_offsets(v))
    if offs.size:
        assert offs.min() >= 0 and offs.max() + itemsize(v) <= alloc.nbytes


# ---------------------------------------------------------------------------- view matrix


def _f32() -> torch.Tensor:
    return torch.arange(6 * 8, dtype=torch.float32).reshape(6, 8)


VIEWS: dict[str, Callable[[torch.Tensor], Value]] = {
    "self": lambda x: x,
    "detach": lambda x: x.detach(),
    "view-1": lambda x: x.view(-1),
    "t": lambda x: x.t(),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "row0": lambda x: x[0],
    "row1": lambda x: x[1],
    "col0": lambda x: x[:, 0],
    "col1": lambda x: x[:, 1],
    "rows-step2": lambda x: x[::2],
    "rows-odd": lambda x: x[1::2],
    "cols-step3": lambda x: x[:, ::3],
    "block": lambda x: x[1:4, 2:6],
    "diagonal": lambda x: x.diagonal(),
    "diagonal1": lambda x: x.diagonal(1),
    "flip-numpy": lambda x: x.numpy()[::-1, ::2],
    "numpy": lambda x: x.numpy(),
    "numpy-col": lambda x: x.numpy()[:, 3],
    "from_numpy-slice": lambda x: torch.from_numpy(x.numpy()[2:]),
    "as_tensor-T": lambda x: torch.as_tensor(x.numpy().T),
    "expand": lambda x: x[0, :3].expand(4, 3),
    "broadcast_to": lambda x: np.broadcast_to(x.numpy()[2], (3, 8)),
    "unfold": lambda x: x.view(-1).unfold(0, 5, 2),
    "unfold-2d": lambda x: x.unfold(1, 3, 1),
    "as_strided-interleave": lambda x: x.as_strided((4, 5), (7, 5), 1),
    "np-as_strided": lambda x: np.lib.stride_tricks.as_strided(
        x.numpy()[1:], shape=(5, 4), strides=(12, 8), writeable=False
    ),
    "int32": lambda x: x.view(torch.int32)[::2],
    "uint8": lambda x: x.view(torch.uint8)[1, 3:17],
    "uint8-numpy": lambda x: x.numpy().view(np.uint8)[3:40:3],
    "float64": lambda x: x.view(torch.float64)[:, 1],
    "int16-T": lambda x: x.view(torch.int16).t()[::3],
    "complex": lambda x: x.view(torch.complex64),
    "real": lambda x: x.view(torch.complex64).real,
    "imag": lambda x: x.view(torch.complex64).imag,
    "view_as_real": lambda x: torch.view_as_real(x.view(torch.complex64)[1]),
    "empty-slice": lambda x: x[3:3],
}


@pytest.fixture(scope="module")
def matrix() -> dict[str, Value]:
    x = _f32()
    return {name: make(x) for name, make in VIEWS.items()}


def test_matrix_offsets_match_torch_and_numpy(matrix: dict[str, Value]) -> None:
    for v in matrix.values():
        check_offsets(v)


def test_matrix_every_pair_matches_brute_force(matrix: dict[str, Value]) -> None:
    for na, a in matrix.items():
        for nb, b in matrix.items():
            try:
                check_pair(a, b)
            except AssertionError as exc:  # pragma: no cover - names make failures readable
                raise AssertionError(f"relation({na}, {nb}): {exc}") from exc


def test_matrix_internal_overlap_matches_brute_force(matrix: dict[str, Value]) -> None:
    for name, v in matrix.items():
        assert m.internal_overlap(v) == brute_overlap(v), name


@pytest.mark.parametrize(
    "dtype",
    [
        torch.bool,
        torch.uint8,
        torch.int16,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.int64,
        torch.complex128,
    ],
)
def test_dtypes_views(dtype: torch.dtype) -> None:
    x = torch.zeros(5, 6, dtype=dtype)
    views = [
        x,
        x[1],
        x[:, 2],
        x[::2, 1::2],
        x.t(),
        x.diagonal(),
        x[0].expand(3, 6),
        x.unfold(1, 3, 2),
        x.view(torch.uint8)[:, 1:],
    ]
    for a in views:
        check_offsets(a)
        assert m.internal_overlap(a) == brute_overlap(a)
        for b in views:
            check_pair(a, b)


# ---------------------------------------------------------------------------- contract cases


def test_contract_examples() -> None:
    x = torch.arange(12.0).reshape(3, 4)
    assert tx.relation(x, x.detach()).kind == "alias"
    assert tx.relation(x, x.t()).kind == "alias"
    assert tx.relation(x, x.view(-1)).kind == "alias"
    assert tx.relation(x.unsqueeze(0), x.unsqueeze(0).squeeze()).kind == "alias"
    col = tx.relation(x, x[:, 1])
    assert (col.kind, col.shared_bytes) == ("contains", 12)
    assert tx.relation(x[:, 1], x).kind == "inside"
    assert tx.relation(x, x.diagonal()).kind == "contains"
    sep = tx.relation(x[0], x[1])
    assert (sep.kind, sep.shared_bytes) == ("same-storage", 0)
    ov = tx.relation(x[0, :3], x[0, 2:])
    assert (ov.kind, ov.shared_bytes) == ("overlap", 4)
    assert tx.relation(x, torch.arange(12.0)) is None
    assert tx.relation(x, x.clone()) is None
    assert (ov.a, ov.b) == (None, None)


def test_numpy_torch_sharing_follows_the_allocation() -> None:
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.from_numpy(arr[1:])
    assert m.allocation(torch.from_numpy(arr)).key == m.allocation(arr).key
    rel = tx.relation(t, arr[0])
    assert rel is not None and rel.kind == "same-storage"
    assert tx.relation(arr, t).kind == "contains"
    assert tx.relation(torch.as_tensor(arr), arr).kind == "alias"
    assert tx.relation(arr, np.array(arr)) is None
    assert tx.relation(arr, torch.tensor(arr)) is None
    x = torch.arange(10.0)
    n = x[2:].numpy()
    assert m.allocation(n).key == m.allocation(x).key
    assert tx.relation(x, n).kind == "contains"
    assert tx.relation(n[::-1], x[2:]).kind == "alias"
    assert tx.element_offsets(n[::-1])[0] == 9 * 4
    assert m.allocation(n[::-1]).offset_bytes == 36


def test_from_numpy_of_disjoint_parts_grouped_through_the_array() -> None:
    arr = np.arange(10, dtype=np.int64)
    a, b = torch.from_numpy(arr[:4]), torch.from_numpy(arr[6:])
    assert tx.relation(a, b) is None  # documented: nothing links them without the array
    rels = m.relations_among({"a": a, "b": b, "arr": arr})
    assert {(r.a, r.b, r.kind) for r in rels} == {
        ("a", "b", "same-storage"),
        ("arr", "a", "contains"),
        ("arr", "b", "contains"),
    }


def test_allocation_of_memmap_and_bytes(tmp_path) -> None:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(100, dtype=np.float32))
    mm = np.load(path, mmap_mode="r")
    alloc = m.allocation(mm)
    assert isinstance(mm.base, mmap.mmap)
    assert alloc.start is not None and alloc.start <= mm.ctypes.data
    assert alloc.offset_bytes == mm.ctypes.data - alloc.start >= 0
    assert tx.relation(mm, mm[10:20]).kind == "contains"
    check_offsets(mm[::-7])
    buf = bytes(range(64))
    arr = np.frombuffer(buf, dtype=np.uint16)
    alloc = m.allocation(arr[3:])
    assert alloc.nbytes == 64 and alloc.offset_bytes == 6
    assert tx.relation(arr[::2], arr[1::2]).kind == "same-storage"
    with warnings.catch_warnings():  # from_numpy of a read-only array warns; deliberate here
        warnings.simplefilter("ignore", UserWarning)
        t = torch.from_numpy(arr)
    assert tx.relation(t, arr[5:9]).kind == "contains"
    del mm


def test_zero_d_and_zero_size() -> None:
    x = torch.arange(5.0)
    s = x[2]
    assert tx.element_offsets(s).shape == () and int(tx.element_offsets(s)) == 8
    assert not m.internal_overlap(s)
    assert tx.relation(x, s).kind == "contains"
    e = x[3:3]
    assert tx.element_offsets(e).shape == (0,)
    assert tx.relation(x, e).kind == "contains" and tx.relation(x, e).shared_bytes == 0
    assert not m.internal_overlap(torch.empty(0, 3).expand(0, 3))
    assert tx.relation(torch.empty(0), torch.empty(0)) is None  # no memory at all
    a0 = np.array(3.0)
    assert tx.element_offsets(a0).shape == ()


def test_meta_and_sparse_are_answered_sensibly() -> None:
    meta = torch.empty(3, 4, device="meta")
    alloc = m.allocation(meta)
    assert alloc.key is None and not alloc.has_memory and "meta" in alloc.note
    assert tx.relation(meta, meta) is None
    assert m.internal_overlap(meta.expand(2, 3, 4).unsqueeze(0).expand(2, 2, 3, 4))
    assert not m.internal_overlap(meta.t())
    np.testing.assert_array_equal(tx.element_offsets(meta[1]), [16, 20, 24, 28])
    sp = torch.eye(3).to_sparse()
    assert m.allocation(sp).key is None and "sparse" in m.allocation(sp).note.lower()
    assert tx.relation(sp, sp) is None
    assert not m.internal_overlap(sp)
    with pytest.raises(TypeError):
        tx.element_offsets(sp)
    with pytest.raises(TypeError):
        m.relation(sp, [1, 2])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- internal overlap


def test_internal_overlap_where_torch_does_not_know() -> None:
    base = torch.arange(100.0)
    cases = {
        base.as_strided((4, 5), (7, 5)): False,  # interleaved, but 7i == 5j needs i >= 5
        base.as_strided((6, 8), (7, 5)): True,  # 7*5 == 5*7
        base.as_strided((3, 4), (5, 1)): False,  # gaps between rows
        base.as_strided((3, 4), (3, 1)): True,
        base.unfold(0, 4, 2): True,
        base.unfold(0, 2, 2): False,
        base.unfold(0, 2, 3): False,
        base[:6].expand(3, 6): True,
        base.as_strided((2, 3), (0, 1)): True,
        base.as_strided((1, 3), (0, 1)): False,
        base.as_strided((5, 5), (11, 2)): False,
        base.view(torch.uint8).as_strided((3, 3), (4, 3)): False,  # 4i+3j all distinct
        base.view(torch.uint8).as_strided((4, 5), (4, 3)): True,  # 4*3 == 3*4
    }
    unknown = 0
    for v, expected in cases.items():
        truth = brute_overlap(v)
        assert m.internal_overlap(v) == truth
        torch_says = torch._debug_has_internal_overlap(v)
        if torch_says in (0, 1):
            assert bool(torch_says) == truth
        else:
            unknown += 1
        assert truth == expected
    assert unknown >= 3  # the point: torch answered "don't know" and we still decided


def test_internal_overlap_fast_and_exact_on_big_values() -> None:
    big = torch.empty(0).new_empty((10**8,), dtype=torch.uint8, device="meta")
    assert not m.internal_overlap(big.view(10**4, 10**4).t()[::3])
    assert m.internal_overlap(big.unfold(0, 1000, 999))
    assert not m.internal_overlap(big.unfold(0, 1000, 1000))
    # interleaving strides 7 and 10 over 10^4 x 10^4 elements: coprime lattice, bitmap path
    assert m.internal_overlap(big.as_strided((10**4, 10**4), (7, 10)))
    # 3 and 5 with only two rows: 3*k1 + 5*k2 never repeats when k1 < 5
    assert not m.internal_overlap(big.as_strided((2, 5), (5, 3)))


# ---------------------------------------------------------------------------- panel helpers


def test_relations_among_orients_and_groups() -> None:
    x = torch.arange(12.0).reshape(3, 4)
    arr = np.zeros(5)
    values: dict[str, Value] = {
        "row": x[1],
        "x": x,
        "t": x.t(),
        "other": torch.ones(2),
        "arr": arr,
        "tail": arr[2:],
    }
    rels = m.relations_among(values)
    got = {(r.a, r.b): (r.kind, r.shared_bytes) for r in rels}
    assert got == {
        ("x", "row"): ("contains", 16),
        ("t", "row"): ("contains", 16),
        ("x", "t"): ("alias", 48),
        ("arr", "tail"): ("contains", 24),
    }
    for r in rels:
        kind, shared = brute_relation(values[r.a], values[r.b])
        assert (r.kind, r.shared_bytes) == (kind, shared)


def test_readers_link_elements_across_values() -> None:
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    values: dict[str, Value] = {
        "arr": arr,
        "t": torch.from_numpy(arr),
        "col": torch.from_numpy(arr)[:, 2],
        "bytes": arr.view(np.uint8),
        "rows": torch.from_numpy(arr)[1].expand(2, 4),
        "other": np.zeros(3),
    }
    got = m.readers(values, "arr", (1, 2))
    assert got["arr"] == [(1, 2)] and got["t"] == [(1, 2)] and got["col"] == [(1,)]
    assert sorted(got["bytes"]) == [(1, k) for k in range(8, 12)]
    assert sorted(got["rows"]) == [(0, 2), (1, 2)]
    assert "other" not in got
    assert m.readers(values, "bytes", (0, 5)) == {"arr": [(0, 1)], "t": [(0, 1)], "bytes": [(0, 5)]}
    with pytest.raises(IndexError):
        m.readers(values, "arr", (3, 0))


def test_readers_matches_brute_force_on_overlapping_layouts() -> None:
    base = torch.arange(60, dtype=torch.int16)
    values: dict[str, Value] = {
        "u": base.unfold(0, 6, 4),
        "s": base.as_strided((5, 4), (3, -0 + 2), 1),
        "f": base.view(torch.int32)[3:9],
        "n": base.numpy()[::-3],
    }
    offs = {k: true_offsets(v) for k, v in values.items()}
    for name in values:
        for index in np.ndindex(*values[name].shape):
            lo = offs[name][index]
            hi = lo + itemsize(values[name])
            got = m.readers(values, name, index)
            for other, v in values.items():
                o = offs[other]
                hit = (o < hi) & (o + itemsize(v) > lo)
                expected = sorted(tuple(int(i) for i in ix) for ix in np.argwhere(hit))
                assert sorted(got.get(other, [])) == expected


def test_multiplicities() -> None:
    x = torch.arange(6.0)
    e = x[:3].expand(4, 3)
    mult = m.element_multiplicity(e)
    assert mult.shape == (4, 3) and (mult == 4).all()
    assert (m.element_multiplicity(x.view(2, 3).t()) == 1).all()
    u = x.unfold(0, 3, 1)  # windows [0..2], [1..3], ...
    np.testing.assert_array_equal(
        m.element_multiplicity(u),
        [[1, 2, 3], [2, 3, 3], [3, 3, 2], [3, 2, 1]],
    )
    lo, counts = m.byte_multiplicity(u)
    assert lo == 0 and counts.shape == (24,)
    np.testing.assert_array_equal(counts[::4], [1, 2, 3, 3, 2, 1])
    fp = m.footprint(e)
    assert fp.size == 12 and fp.runs()[0].tolist() == [0]


def test_footprint_runs_window() -> None:
    x = torch.empty(1000, 1000, dtype=torch.float32)
    fp = m.footprint(x[::2, 10:20])
    assert fp.size == 500 * 40
    starts, ends = fp.runs(0, 16_000)
    assert starts.tolist() == [40, 8040] and ends.tolist() == [80, 8080]
    with pytest.raises(ValueError):
        fp.runs(max_runs=10)


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("shared = torch.from_numpy(array)", "shares memory"),
        ("torch.tensor(array)", "copies"),
        ("x[0, :2]", "shares memory"),
        ("x[::-1]", "shares memory"),
        ("x[[0, 1]]", "may copy"),
        ("x.t()", "shares memory"),
        ("x.T", "shares memory"),
        ("torch.t(x)", "shares memory"),
        ("x.numpy()", "shares memory"),
        ("x.detach().clone()", "copies"),
        ("x.to(torch.float64)", "copies when dtype or device change"),
        ("x.expand(3, 4)", "stride 0"),
        ("x @ w + b", "new memory"),
        ("torch.zeros(3)", "new memory"),
    ],
)
def test_sharing_reason_in_words(source: str, says: str) -> None:
    reason = m.sharing_reason("v", source)
    assert reason is not None and reason.startswith("`v` was made by `") and says in reason
    zh = m.sharing_reason("v", source, lang="zh")
    assert zh is not None and zh.startswith("`v` 由 `") and "which" not in zh
    assert ("共享内存" in zh) == ("shares memory" in reason)


def test_every_sharing_phrase_has_a_chinese_translation() -> None:
    import inspect
    import re

    from tensor_explorer.core.catalog import CATALOG

    # the phrases are catalog codes (their English starts with 'which'), each with its Chinese
    phrases = {phrase for _, phrase in m._MAKERS.values()}
    phrases |= set(re.findall(r'"(sharing\.[^"]*)"', inspect.getsource(m._phrase_code)))
    assert phrases and not phrases - set(CATALOG)
    for code in phrases:
        assert CATALOG[code]["en"].startswith("which ") and CATALOG[code]["zh"]
        assert CATALOG[code]["zh"] != CATALOG[code]["en"]


def test_sharing_reason_knows_when_it_does_not_know() -> None:
    assert m.sharing_reason("v", "helper(x)") is None
    assert m.sharing_reason("v", "x = (") is None
    assert m.sharing_reason("v", "a = 1; b = 2") is None


def test_intersecting_groups_are_the_connected_ranges() -> None:
    # one function for what a memory-panel strip and a session allocation hold: ranges that
    # intersect (transitively) share a group; ranges that only touch do not
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(0, 9))
        starts = rng.integers(0, 40, n)
        ranges = [(int(s), int(s + rng.integers(1, 8))) for s in starts]
        got = m.intersecting_groups(ranges)
        assert sorted(i for g in got for i in g) == list(range(n))
        # brute force: union-find over strictly intersecting pairs
        parent = list(range(n))

        def find(i: int, parent: list[int] = parent) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for i in range(n):
            for j in range(n):
                (a, b), (c, d) = ranges[i], ranges[j]
                if a < d and c < b:
                    parent[find(i)] = find(j)
        want = sorted(sorted(i for i in range(n) if find(i) == r) for r in set(map(find, range(n))))
        assert sorted(sorted(g) for g in got) == want
        firsts = [min(ranges[i][0] for i in g) for g in got]
        assert firsts == sorted(firsts)
    assert m.intersecting_groups([(0, 4), (4, 8)]) == [[0], [1]]


def test_why_an_allocation_has_no_bytes_is_said_in_both_languages() -> None:
    # the memory panel draws these notes under a lane; they are catalog Messages, so a Chinese
    # window says them in Chinese (English unchanged)
    from tensor_explorer.core.catalog import Message, text_in
    from tensor_explorer.core.memory import allocation as allocation_of

    meta = allocation_of(torch.empty(2, 3, device="meta")).note
    sparse = allocation_of(torch.eye(3).to_sparse()).note
    empty = allocation_of(torch.empty(0)).note
    assert meta == "meta tensor: shape, dtype and strides only; no memory is allocated"
    assert sparse.startswith("torch.sparse_coo tensor: values and indices live in separate")
    for note in (meta, sparse, empty):
        assert isinstance(note, Message)
        zh = text_in(note, "zh")
        assert zh != str(note) and re.search(r"[\u4e00-\u9fff]", zh), zh
