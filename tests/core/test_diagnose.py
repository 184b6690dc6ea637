"""diagnose(): the seeds' common mistakes, detected on real values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core.diagnose import guess_role


def codes(value, **kw) -> list[str]:
    return [d.code for d in tx.diagnose(value, **kw)]


def test_nonfinite_names_count_and_first_index() -> None:
    t = torch.tensor([[1.0, 2.0], [math.nan, math.inf]])
    (d,) = [d for d in tx.diagnose(t) if d.code == "nonfinite"]
    assert d.severity == "error"
    assert "2 of 4" in d.message and "1 NaN" in d.message and "1 +Inf" in d.message
    assert "[1, 0]" in d.message


def test_grad_none_reasons_match_what_torch_does() -> None:
    plain = torch.ones(2)
    assert "grad-none-no-requires-grad" in codes(plain)
    w = torch.ones(2, requires_grad=True)
    assert "grad-none-no-backward" in codes(w)
    h = w * 2
    assert "grad-none-not-leaf" in codes(h)
    h.sum().backward()
    assert h.is_leaf is False and w.grad is not None  # torch: the leaf got it, h did not
    assert not [c for c in codes(w) if c.startswith("grad-none")]
    assert "grad-none-not-leaf" in codes(h)
    assert not [c for c in codes(torch.arange(3)) if c.startswith("grad-none")]


def test_non_contiguous_predicts_view_failure() -> None:
    t = torch.arange(6.0).reshape(2, 3).t()
    assert "non-contiguous" in codes(t)
    with pytest.raises(RuntimeError, match="view"):
        t.view(6)  # torch agrees: view fails
    assert "non-contiguous" not in codes(t.contiguous())


def test_internal_overlap_predicts_in_place_failure() -> None:
    e = torch.zeros(1, 3).expand(2, 3)
    assert "internal-overlap" in codes(e)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.add_(1)
    assert "internal-overlap" not in codes(e.clone())


def test_inference_tensor() -> None:
    with torch.inference_mode():
        t = torch.ones(3)
    assert "inference-tensor" in codes(t)
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        torch.mul(w, t)  # torch agrees: it cannot enter autograd


def test_roles_from_names_and_dtypes() -> None:
    assert guess_role("features") == "features" and guess_role("x") == "features"
    assert guess_role("labels") == "labels" and guess_role("y_batch") == "labels"
    assert guess_role("weights") is None
    assert "integer-features" in codes(torch.tensor([[1, 2]]), name="features")
    assert "float-labels" in codes(torch.tensor([0.0, 1.0]), name="labels")
    assert "labels-not-long" in codes(torch.tensor([0, 1], dtype=torch.int32), name="y")
    assert "float-labels" not in codes(torch.tensor([0, 1]), name="labels")
    # torch agrees: float features into Linear work, integer ones do not; float labels fail
    with pytest.raises(RuntimeError):
        torch.nn.Linear(2, 2)(torch.tensor([[1, 2]]))
    with pytest.raises(RuntimeError):
        torch.nn.functional.cross_entropy(
            torch.randn(2, 3), torch.tensor([0, 1], dtype=torch.int32)
        )


def test_severity_order_and_arrays() -> None:
    a = np.array([1.0, np.nan], dtype=np.float32)[::-1]
    ds = tx.diagnose(a, role="labels")
    sev = [d.severity for d in ds]
    assert sev == sorted(sev, key=["error", "warning", "info"].index)
    assert {"nonfinite", "float-labels"} <= {d.code for d in ds}
    assert all(d.message and d.to_dict()["code"] == d.code for d in ds)


def test_meta_tensor_gets_a_note_not_a_crash() -> None:
    assert "meta-device" in codes(torch.empty(2, device="meta"))


def test_every_message_has_chinese_and_english() -> None:
    from tensor_explorer.core.diagnose import MESSAGES

    for code, (severity, texts) in MESSAGES.items():
        assert severity in ("error", "warning", "info")
        assert set(texts) == {"en", "zh"}, code
        assert texts["en"] != texts["zh"]
    t = torch.tensor([[1.0, math.nan]]).t()
    zh = tx.diagnose(t, name="labels", lang="zh")
    en = tx.diagnose(t, name="labels", lang="en")
    assert [d.code for d in zh] == [d.code for d in en]
    assert "不是有限数" in zh[0].message and "[1, 0]" in zh[0].message
