"""ValueTable: blocks of the whole plane at true indices, checked against NumPy/torch slicing;
per-column number formats; parsing a typed index; the size bound on copies; no Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tensor_explorer.core import copy_text
from tensor_explorer.core.value_table import (
    IndexInputError,
    SelectionTooLarge,
    ValueTable,
    parse_index,
)


def _np(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().resolve_conj().resolve_neg().numpy()


def _assert_exact(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # NaN == NaN here; values bit-for-bit otherwise


def _random_blocks(table: ValueTable, rng: np.random.Generator, n: int = 8):
    for _ in range(n):
        r0 = int(rng.integers(0, table.rows))
        c0 = int(rng.integers(0, table.cols))
        r1 = int(rng.integers(r0 + 1, table.rows + 1))
        c1 = int(rng.integers(c0 + 1, table.cols + 1))
        yield r0, r1, c0, c1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16,
                                   torch.int8, torch.int64, torch.uint8, torch.bool,
                                   torch.complex64])
def test_blocks_and_cells_equal_torch_slices(dtype: torch.dtype) -> None:
    rng = np.random.default_rng(0)
    g = torch.Generator().manual_seed(int(dtype.itemsize))
    for _ in range(3):
        shape = (int(rng.integers(1, 300)), int(rng.integers(1, 90)))
        if dtype.is_floating_point or dtype.is_complex:
            t = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
            if dtype.is_complex:
                t = t + 1j * torch.randn(*shape, generator=g).to(dtype)
        elif dtype == torch.bool:
            t = torch.rand(*shape, generator=g) > 0.5
        else:
            t = torch.randint(0, 100, shape, generator=g).to(dtype)
        table = ValueTable(t, block_rows=17, block_cols=5)
        assert (table.rows, table.cols) == shape
        want = _np(t)
        for r0, r1, c0, c1 in _random_blocks(table, rng):
            _assert_exact(table.read(r0, r1, c0, c1), want[r0:r1, c0:c1])
        for r, c in [(0, 0), (shape[0] - 1, shape[1] - 1), (shape[0] // 2, shape[1] // 3)]:
            assert table.cell(r, c) == want[r, c]
            assert table.original_index(r, c) == (r, c)


def test_strided_transposed_expanded_and_negative_views() -> None:
    base = torch.arange(40 * 60, dtype=torch.float32).reshape(40, 60)
    rng = np.random.default_rng(1)
    views = {
        "strided": base[::3, 1::2],
        "transposed": base.t(),
        "expanded": torch.arange(7.0).reshape(7, 1).expand(7, 5000),
        "conj": (base + 1j * base).conj()[:5, :5],
        "neg": torch.arange(12.0).reshape(3, 4)._neg_view(),
    }
    for t in views.values():
        table = ValueTable(t, block_rows=8, block_cols=8)
        want = _np(t)
        for r0, r1, c0, c1 in _random_blocks(table, rng):
            _assert_exact(table.read(r0, r1, c0, c1), want[r0:r1, c0:c1])
    flipped = np.arange(20.0).reshape(4, 5)[::-1, ::-2]
    _assert_exact(ValueTable(flipped).read(0, 4, 0, 3), flipped)
    big_endian = np.arange(12, dtype=">i4").reshape(3, 4)
    block = ValueTable(big_endian).read(0, 3, 0, 4)
    assert block.dtype.isnative
    _assert_exact(block, big_endian)


def test_nd_planes_hold_other_axes_at_the_index_and_transpose() -> None:
    t = torch.randn(3, 4, 5, 6)
    table = ValueTable(t, axes=(1, 3), index={0: 2, 2: -1})
    assert (table.rows, table.cols) == (4, 6)
    _assert_exact(table.read(0, 4, 0, 6), t[2, :, 4, :].numpy())
    assert table.original_index(1, 5) == (2, 1, 4, 5)
    assert table.table_cell((2, 1, 4, 5)) == (1, 5)
    transposed = ValueTable(t, axes=(3, 1), index={0: 0, 2: 1})
    _assert_exact(transposed.read(0, 6, 0, 4), t[0, :, 1, :].numpy().T)
    assert transposed.original_index(5, 2) == (0, 2, 1, 5)
    vector = ValueTable(t[0, 0, 0])
    assert (vector.rows, vector.cols, vector.ndim) == (6, 1, 1)
    assert vector.original_index(3, 0) == (3,) and vector.plane_cell(3, 0) == (3,)
    scalar = ValueTable(torch.tensor(2.5))
    assert (scalar.rows, scalar.cols, scalar.ndim) == (1, 1, 0)
    assert scalar.cell(0, 0) == 2.5 and scalar.original_index(0, 0) == ()
    with pytest.raises(ValueError):
        ValueTable(t, axes=(1, 1))
    with pytest.raises(ValueError):
        ValueTable(t, index={0: 3})


def test_memmap_blocks_read_only_the_block(tmp_path: Path) -> None:
    n = 16384
    path = tmp_path / "big.npy"
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, n))
    rows = np.array([0, 1, 4000, n - 1])
    mm[rows, :] = np.arange(n, dtype=np.float32)  # only these rows' pages are written
    mm[:, 17] = -np.arange(n, dtype=np.float32)
    mm.flush()
    del mm
    ro = np.load(path, mmap_mode="r")
    table = ValueTable(ro)
    assert (table.rows, table.cols) == (n, n)
    for r0, c0 in [(0, 0), (4000, 0), (n - 128, n - 32), (8000, 8000)]:
        block = table.read(r0, r0 + 128, c0, c0 + 32)
        _assert_exact(block, np.asarray(ro[r0:r0 + 128, c0:c0 + 32]))
    assert table.cell(4000, 17) == ro[4000, 17] == -4000.0
    assert table.cell(1, 1) == 1.0
    table.column_format(17)
    # only the blocks asked for were read (a block of a 1 GiB map costs what a block of a small
    # array costs: its speed is measured in bench/, not asserted here)
    assert table.blocks_read == 2  # the two cells; read() reads without keeping blocks


def test_the_block_cache_is_bounded_and_forgets_on_request() -> None:
    a = np.arange(1000 * 100, dtype=np.float64).reshape(1000, 100)
    table = ValueTable(a, block_rows=10, block_cols=10, max_blocks=4)
    for r in range(0, 1000, 10):
        assert table.cell(r, 0) == a[r, 0]
    assert len(table._blocks) == 4 and table.blocks_read == 100
    table.cell(990, 0)
    assert table.blocks_read == 100  # the newest blocks stay
    old = a[990, 0]
    a[990, 0] = -1.0
    assert table.cell(990, 0) == old  # a block is a copy, read once...
    table.forget()  # ...until the table is told the value was written
    assert table.cell(990, 0) == -1.0


def _style(text: str) -> str:
    return "sci" if "e" in text else "fixed"


def test_each_column_has_one_style_chosen_from_a_sample() -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5000, 6)).astype(np.float32)
    a[:, 1] *= 1e-7  # tiny: scientific
    a[:, 2] = np.round(a[:, 2], 2)
    a[::7, 3] = 1e12  # huge values scattered through the column
    a[100, 4] = np.nan
    a[200, 4] = np.inf
    table = ValueTable(a)
    formats = [table.column_format(c) for c in range(6)]
    assert formats[1].style == "sci"
    assert formats[2].style == "fixed" and formats[2].decimals <= 2
    for c in range(6):
        texts = [table.text(r, c) for r in range(0, 5000, 3)]
        finite = [t for t in texts if t not in ("nan", "inf", "-inf")]
        assert len({_style(t) for t in finite}) == 1, c
    assert table.text(100, 4) == "nan" and table.text(200, 4) == "inf"
    # chosen once: reading more rows never changes a column's format
    before = table.column_format(0)
    for r in range(0, 5000, 50):
        table.text(r, 0)
    assert table.column_format(0) is before
    ints = ValueTable(np.array([[2**53 + 1, -7]], dtype=np.int64))
    assert ints.text(0, 0) == str(2**53 + 1)
    assert ValueTable(torch.eye(2, dtype=torch.bool)).text(0, 1) == "False"


def test_exact_text_and_flags() -> None:
    a = np.array([[0.41, np.nan], [np.inf, -np.inf]], dtype=np.float32)
    table = ValueTable(a)
    assert table.exact(0, 0) == repr(float(a[0, 0]))
    assert float(table.exact(0, 0)) == float(a[0, 0])
    assert [table.flag(0, 0), table.flag(0, 1), table.flag(1, 0), table.flag(1, 1)] == [
        None, "nan", "posinf", "neginf"]
    z = torch.tensor([[complex(np.inf, 1.0), 1 + 2j]], dtype=torch.complex64)
    assert ValueTable(z, part="magnitude").flag(0, 0) == "posinf"
    assert ValueTable(z, part="imag").flag(0, 0) is None
    assert ValueTable(z).exact(0, 1) == "1+2j" and ValueTable(z).text(0, 1) == "1+2j"


def test_parse_index() -> None:
    shape = (4096, 4096)
    assert parse_index("1, 1", shape) == (1, 1)
    assert parse_index("[4000, 17]", shape) == (4000, 17)
    assert parse_index(" (-1,-4096) ", shape) == (4095, 0)
    assert parse_index("3 4", shape) == (3, 4)
    cases = {"": "empty", "1": "count", "1, 2, 3": "count", "a, 1": "not_int",
             "1.5, 2": "not_int", "4096, 0": "range", "0, -4097": "range"}
    for text, code in cases.items():
        with pytest.raises(IndexInputError) as info:
            parse_index(text, shape)
        assert info.value.code == code, text
    with pytest.raises(IndexInputError) as info:
        parse_index("0", ())
    assert info.value.code == "scalar"


def test_copied_blocks_are_exact_and_bounded() -> None:
    a = np.random.default_rng(3).standard_normal((50, 40)).astype(np.float32)
    table = ValueTable(a)
    cells = table.block(3, 5, 7, 10)
    _assert_exact(cells, a[3:5, 7:10])
    tsv = copy_text.to_tsv(cells)
    back = np.array([[float(x) for x in line.split("\t")] for line in tsv.splitlines()],
                    dtype=np.float32)
    _assert_exact(back, a[3:5, 7:10])
    literal = copy_text.block_literal(cells, table.dtype, table.ndim)
    _assert_exact(eval(literal, {"np": np}), a[3:5, 7:10])
    big = ValueTable(torch.zeros(1).expand(10_000, 10_000))
    with pytest.raises(SelectionTooLarge) as info:
        big.block(0, 10_000, 0, 10_000)
    assert info.value.cells == 10**8


def test_value_table_imports_no_qt() -> None:
    code = ("import sys, tensor_explorer.core.value_table; "
            "print([m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', "
            "'tensor_explorer.qt'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_two_tables_over_the_same_tensor_have_the_same_key() -> None:
    # the table view keeps its selection and scroll over a re-read when the keys are equal;
    # a tensor's table holds a new detached view each time, so the key names the caller's object
    t = torch.arange(12.0).reshape(3, 4)
    assert ValueTable(t).key == ValueTable(t).key
    assert ValueTable(t).key != ValueTable(t.clone()).key
    assert ValueTable(t).key != ValueTable(t, axes=(1, 0)).key


def test_float32_cells_show_their_own_digits_and_columns_line_up() -> None:
    """#27: the table showed float32 123.456 as "123.45600128" (float64 digits) and one column
    switched to 7.97433e-01 while its neighbours were plain decimals."""
    values = np.array([[123.456, 0.797433, 1.5], [2.0, 0.00123457, 3.25]], dtype=np.float32)
    table = ValueTable(torch.from_numpy(values))
    for r in range(2):
        for c in range(3):
            text = table.text(r, c)
            # what is shown reads back as the very float32 (no digit beyond what it holds)
            assert np.float32(text) == values[r, c], text
            assert len(text.replace("-", "").replace(".", "").lstrip("0")) <= 9, text
    assert table.text(1, 1) == "0.00123457" and table.text(0, 1) == "0.797433"
    assert table.column_format(1).style == "fixed"  # not scientific for 0.797433
    # a column mixing 123.456 and 0.00123457 in float32 cannot be fixed without noise
    mixed = ValueTable(torch.tensor([[123.456], [0.00123457]], dtype=torch.float32))
    assert mixed.column_format(0).style == "sci"
    assert np.float32(mixed.text(0, 0)) == np.float32(123.456)
    # the shown text lines decimal points up with figure spaces; the copied text has none
    fmt = table.column_format(1)
    shown = [fmt.align(table.text(r, 1)) for r in range(2)]
    assert len({len(t) for t in shown}) == 1 and "\u2007" in shown[0]
    # float16 too: 0.1 is "0.1", not float64's 0.0999756
    half = ValueTable(torch.tensor([[0.1, 0.25]], dtype=torch.float16))
    assert half.text(0, 0) == "0.1"
