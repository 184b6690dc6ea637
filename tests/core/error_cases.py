"""Programs that fail with each error kind :mod:`tensor_explorer.core.explain` knows, shared by
the runner's tests and the tests of the explanations' translations.

Each case is ``(setup, failing, kind, words)``: ``setup`` runs first, ``failing`` fails with
``kind``, and the English explanation contains ``words``.
"""

from __future__ import annotations

#: the common errors of the seed chapters
COMMON_ERRORS: list[tuple[str, str, str, str]] = [
    ("x = torch.tensor([1, 2])", "m = x.mean()", "not-floating", "dtype=torch.float32"),
    ("", "w = torch.tensor([1, 2], requires_grad=True)", "not-floating", ".float()"),
    (
        "model = nn.Linear(2, 2)\nx = torch.tensor([[1, 2]])",
        "y = model(x)",
        "dtype-mismatch",
        "same dtype",
    ),
    (
        "logits = torch.randn(2, 3)\ntarget = torch.tensor([0.0, 1.0])",
        "loss = F.cross_entropy(logits, target)",
        "cross-entropy-target-dtype",
        "torch.long",
    ),
    (
        "logits = torch.randn(2, 3)\ntarget = torch.tensor([[0], [1]])",
        "loss = F.cross_entropy(logits, target)",
        "cross-entropy-target-shape",
        "(batch,)",
    ),
    (
        "x = torch.ones(2, requires_grad=True)\nloss = (x * x).sum()\nloss.backward()",
        "loss.backward()",
        "backward-twice",
        "retain_graph=True",
    ),
    (
        "x = torch.ones(2, requires_grad=True)",
        "a = x.numpy()",
        "numpy-requires-grad",
        "detach()",
    ),
    ("x = torch.randn(3, 4).t()", "v = x.view(12)", "view-non-contiguous", "reshape()"),
    (
        "w = torch.ones(2, requires_grad=True)",
        "w.add_(1)",
        "inplace-leaf",
        "torch.no_grad()",
    ),
    (
        "x = torch.ones(2, 3)\nw = torch.ones(2, 2)",
        "y = x @ w",
        "matmul-shape",
        "inner sizes",
    ),
    (
        "a = torch.ones(3)\nb = torch.ones(4)",
        "c = a + b",
        "broadcast-shape",
        "equal or one of them is 1",
    ),
    (
        "y = torch.ones(3, requires_grad=True) * 2",
        "y.backward()",
        "backward-non-scalar",
        "ones_like",
    ),
    ("z = torch.ones(3).sum()", "z.backward()", "backward-no-grad", "detach()"),
    ("x = torch.ones(3)", "v = x.item()", "item-non-scalar", "exactly one element"),
    ("x = torch.ones(3)", "if x:\n    pass", "ambiguous-bool", ".any()"),
    ("e = torch.ones(2, 1).expand(2, 3)", "e.add_(1)", "inplace-overlap", "clone()"),
    (
        "with torch.inference_mode():\n    x = torch.ones(2)\nw = torch.ones(2, "
        "requires_grad=True)",
        "(w * x).sum().backward()",
        "inference-tensor",
        "no_grad",
    ),
]

#: the remaining kinds: with COMMON_ERRORS every kind of ``explain.KINDS`` is produced
MORE_ERRORS: list[tuple[str, str, str, str]] = [
    (
        "features = torch.ones(2, 3)\nmodel = nn.Linear(3, 2).to('meta')",
        "logits = model(features)",
        "device-mismatch",
        ".to(device)",
    ),
    ("x = torch.ones(2, device='meta')", "a = x.numpy()", "numpy-device", "cpu().numpy()"),
    (
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nloss = z.sum()",
        "loss.backward()",
        "inplace-saved",
        "version 1",
    ),
    ("", "a = torch.zeros(2, device='cuda:99')", "device-unavailable", "torch.cuda.is_available()"),
    ("", "a = torch.empty(10**13)", "out-of-memory", "torch.no_grad()"),
    ("", "c = undefined_name", "not-defined", "undefined_name has no value"),
    ("", "f = open('data.txt')", "not-available", "open() is not available"),
    ("def f(n):\n    return f(n + 1)", "r = f(0)", "recursion", "condition"),
]
