"""copy_text: what Edit ▸ Copy puts on the clipboard, checked against torch and NumPy."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
import torch

from tensor_explorer.core import copy_text as ct


def test_small_value_is_its_repr() -> None:
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert ct.value_text(t) == repr(t)
    a = np.arange(6).reshape(2, 3)
    assert ct.value_text(a) == repr(a)
    assert ct.value_text(3.5) == "3.5"


def test_big_value_is_a_summary_and_print_options_are_kept() -> None:
    from torch._tensor_str import PRINT_OPTS

    before = PRINT_OPTS.threshold
    t = torch.arange(100_000.0).reshape(100, 1000)
    text = ct.value_text(t, "big", limit=50)
    head, body = text.split("\n", 1)
    assert head.startswith("# big: tensor of shape (100, 1000)") and "100,000 elements" in head
    assert "..." in body and len(body) < 5000
    assert body.startswith("tensor([[0.0000e+00")
    assert PRINT_OPTS.threshold == before
    a = np.zeros((2000,))
    text = ct.value_text(a, limit=100)
    assert text.startswith("# ndarray of shape (2000,)") and "..." in text


def test_block_is_the_rectangle_holding_the_selection() -> None:
    a = np.arange(20).reshape(4, 5)
    b = ct.block(a, [1, 2, 2], [3, 1, 2])
    np.testing.assert_array_equal(b, a[1:3, 1:4])
    np.testing.assert_array_equal(ct.block(np.arange(5), [1, 3], [0, 0]), [[1], [2], [3]])
    np.testing.assert_array_equal(ct.block(np.float32(2.5), [0], [0]), [[2.5]])
    with pytest.raises(ValueError):
        ct.block(a, [], [])
    with pytest.raises(IndexError):
        ct.block(a, [4], [0])


def test_csv_reads_back_as_the_same_values() -> None:
    t = torch.tensor([[0.1, float("nan")], [float("inf"), -2.0]], dtype=torch.float64)
    text = ct.to_csv(t.numpy())
    rows = list(csv.reader(io.StringIO(text)))
    back = torch.tensor([[float(x) for x in r] for r in rows], dtype=torch.float64)
    assert torch.equal(back.isnan(), t.isnan())
    ok = ~t.isnan()
    assert torch.equal(back[ok], t[ok])  # exact: shortest round-trip floats
    assert ct.to_csv(np.array([[True, False]])) == "True,False\n"
    assert ct.to_csv(np.array([[1 + 2j]])) == "1+2j\n"


def test_numpy_literal_evaluates_to_the_same_array() -> None:
    for a in (np.array([[1.5, np.nan], [np.inf, -np.inf]], dtype=np.float32),
              np.arange(6, dtype=np.int16).reshape(2, 3),
              np.array([[True], [False]]),
              np.array([[1 + 2j, -0.5j]], dtype=np.complex64)):
        text = ct.to_numpy_literal(a, str(a.dtype))
        back = eval(text, {"np": np})
        assert back.dtype == a.dtype
        np.testing.assert_array_equal(back, a)
    t = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
    text = ct.block_literal(ct.block(t.float().numpy(), [0, 2], [0, 0]), str(t.dtype), 1)
    assert text == "np.array([1.0, 2.0, 3.0], dtype=np.float32)"


def test_array_literal_keeps_every_axis() -> None:
    t = torch.arange(24, dtype=torch.int64).reshape(2, 3, 4)
    back = eval(ct.array_literal(t.numpy(), str(t.dtype)), {"np": np})
    assert torch.equal(torch.from_numpy(back), t)
    assert ct.array_literal(np.float64(2.5), "float64") == "np.array(2.5, dtype=np.float64)"
    assert ct.block_literal(np.array([[7]]), "torch.int32", 0) == "np.array(7, dtype=np.int32)"


def test_dates_durations_and_strings_copy_as_the_table_shows_them() -> None:
    from tensor_explorer.core.copy_text import to_csv, to_numpy_literal, to_tsv

    when = np.array([["2024-01-31T12:00", "NaT"]], dtype=">M8[m]")
    took = np.array([[1500], [np.timedelta64("NaT")]], dtype="m8[ms]")
    text = np.array([["ab", "漢字"]])
    raw = np.array([[b"a,b", b"\xff"]])
    assert to_tsv(when) == "2024-01-31T12:00\tNaT\n"
    assert to_csv(took) == "1500 milliseconds\nNaT\n"
    assert to_csv(raw) == "\"b'a,b'\",b'\\xff'\n"
    for a in (when, took, text, raw):
        back = eval(to_numpy_literal(a, str(a.dtype)), {"np": np})
        assert back.shape == a.shape and back.dtype == a.dtype.newbyteorder("=")
        assert np.array_equal(back, a.astype(back.dtype), equal_nan=a.dtype.kind in "Mm")
